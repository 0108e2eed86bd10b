import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readNewsletterConfig } from './newsletter-config.ts';
import { NewsletterEdgeStack } from './newsletter-edge-stack.ts';
import { NewsletterStack } from './newsletter-stack.ts';

/** The app, its one stack, and the cdk-nag pack that checks it at synth. */
export interface NewsletterApp {
  readonly app: App;
  readonly stack: NewsletterStack;
  readonly nag: AwsSolutionsChecks;
}

/** The app when asked for the edge stack (`-c edgeStack=true`): that stack alone. */
export interface NewsletterEdgeApp {
  readonly app: App;
  readonly edge: NewsletterEdgeStack;
  readonly nag: AwsSolutionsChecks;
}

/** Whether the app's context asks for the edge stack alone (`-c edgeStack=true`). */
export function wantsEdgeStack(app: App): boolean {
  return String(app.node.tryGetContext('edgeStack')) === 'true';
}

/** The cdk-nag pack, checking every stack of `app` at synth. */
function checked(app: App): AwsSolutionsChecks {
  const nag = new AwsSolutionsChecks(app, { verbose: true });
  Validations.of(app).addPlugins(nag);
  return nag;
}

/**
 * Builds the app from its context (the CLI passes cdk.json and `-c` values; tests pass
 * `props.context`), so the app the CLI synthesises and the app the tests inspect are one.
 * A cdk-nag finding without an acknowledgement fails the synth.
 */
export function createNewsletterApp(props: AppProps = {}): NewsletterApp {
  return addNewsletterStack(new App(props));
}

/** The service's stack on `app`. */
export function addNewsletterStack(app: App): NewsletterApp {
  // `-c bundling=false` writes the template without building the bundles: the local cloud's
  // source mode runs the TypeScript files instead. The CLI refuses `aws:` keys, hence this.
  if (app.node.tryGetContext('bundling') === 'false') {
    app.node.setContext('aws:cdk:bundling-stacks', []);
  }
  const config = readNewsletterConfig((key) => app.node.tryGetContext(key));
  const stack = new NewsletterStack(app, config.stackName, { config });
  return { app, stack, nag: checked(app) };
}

/**
 * The edge stack alone, for a main stack outside us-east-1: `cdk deploy -c edgeStack=true`
 * deploys just it without naming stacks, and the main stack's assembly stays one stack. Same
 * context, same checks.
 */
export function createNewsletterEdgeApp(props: AppProps = {}): NewsletterEdgeApp {
  return addEdgeStack(new App(props));
}

/** The edge stack on `app`. */
export function addEdgeStack(app: App): NewsletterEdgeApp {
  const config = readNewsletterConfig((key) => app.node.tryGetContext(key));
  const edge = new NewsletterEdgeStack(app, `${config.stackName}Edge`, { config });
  return { app, edge, nag: checked(app) };
}
