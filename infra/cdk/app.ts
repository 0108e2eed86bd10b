import { resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { buildConsole } from '../../console/build.ts';
import { addEdgeStack, addNewsletterStack, wantsEdgeStack } from './newsletter-app.ts';
import { DeploymentContextError } from './newsletter-config.ts';

// Entry point of cdk.json: `npx cdk synth|deploy -c senderIdentity=... [-c stage=...]`;
// with `-c edgeStack=true`, the distribution's web ACL alone, in us-east-1 (docs/deploy.md).
try {
  const app = new App();
  if (wantsEdgeStack(app)) addEdgeStack(app);
  else {
    // `npx cdk synth` and `npx cdk deploy`, as docs/deploy.md writes them, build the console the
    // stack deploys, beside the assembly as the local synth does (infra/local/synthesize.ts);
    // `-c consoleDir=FOLDER` deploys one built before.
    if (app.node.tryGetContext('consoleDir') === undefined)
      app.node.setContext('consoleDir', await buildConsole(`${resolve(app.outdir)}-console`));
    addNewsletterStack(app);
  }
} catch (error) {
  // A missing `-c` value is the operator's to fix: say what, without a stack trace.
  if (!(error instanceof DeploymentContextError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}
