// Another team's CDK app: a function that calls add_subscriber, wired by the package's helper.
import { App, Stack } from 'aws-cdk-lib';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { grantNewsletterAccess, newsletterFunctionProps } from 'serverless-newsletter/cdk';

const app = new App();
const stack = new Stack(app, 'Consumer', { env: { account: '123456789012', region: 'eu-west-1' } });
const access = {
  operations: ['add_subscriber'] as const,
  tableName: 'Newsletter-Table',
  tableArn: 'arn:aws:dynamodb:eu-west-1:123456789012:table/Newsletter-Table',
};
const fn = new LambdaFunction(stack, 'Importer', {
  runtime: Runtime.NODEJS_22_X,
  handler: 'index.handler',
  code: Code.fromInline('export const handler = async () => 0;'),
  ...newsletterFunctionProps(access),
});
grantNewsletterAccess(fn, access);
process.stdout.write(JSON.stringify(app.synth().getStackByName('Consumer').template));
