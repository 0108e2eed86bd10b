import { createNewsletterApp } from './newsletter-app.ts';
import { DeploymentContextError } from './newsletter-config.ts';

// Entry point of cdk.json: `npx cdk synth|deploy -c senderIdentity=... [-c stage=...]`.
try {
  createNewsletterApp();
} catch (error) {
  // A missing `-c` value is the operator's to fix: say what, without a stack trace.
  if (!(error instanceof DeploymentContextError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}
