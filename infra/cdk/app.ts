import { App } from 'aws-cdk-lib';
import { addEdgeStack, addNewsletterStack, wantsEdgeStack } from './newsletter-app.ts';
import { DeploymentContextError } from './newsletter-config.ts';

// Entry point of cdk.json: `npx cdk synth|deploy -c senderIdentity=... [-c stage=...]`;
// with `-c edgeStack=true`, the distribution's web ACL alone, in us-east-1 (docs/deploy.md).
try {
  const app = new App();
  if (wantsEdgeStack(app)) addEdgeStack(app);
  else addNewsletterStack(app);
} catch (error) {
  // A missing `-c` value is the operator's to fix: say what, without a stack trace.
  if (!(error instanceof DeploymentContextError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}
