import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readNewsletterConfig } from './newsletter-config.ts';
import { NewsletterStack } from './newsletter-stack.ts';

/** The app, its one stack, and the cdk-nag pack that checks it at synth. */
export interface NewsletterApp {
  readonly app: App;
  readonly stack: NewsletterStack;
  readonly nag: AwsSolutionsChecks;
}

/**
 * Builds the app from its context (the CLI passes cdk.json and `-c` values; tests pass
 * `props.context`), so the app the CLI synthesises and the app the tests inspect are one.
 * A cdk-nag finding without an acknowledgement fails the synth.
 */
export function createNewsletterApp(props: AppProps = {}): NewsletterApp {
  const app = new App(props);
  // `-c bundling=false` writes the template without building the bundles: the local cloud's
  // source mode runs the TypeScript files instead. The CLI refuses `aws:` keys, hence this.
  if (app.node.tryGetContext('bundling') === 'false') {
    app.node.setContext('aws:cdk:bundling-stacks', []);
  }
  const config = readNewsletterConfig((key) => app.node.tryGetContext(key));
  const stack = new NewsletterStack(app, config.stackName, { config });
  const nag = new AwsSolutionsChecks(app, { verbose: true });
  Validations.of(app).addPlugins(nag);
  return { app, stack, nag };
}
