/**
 * `npm start`: the whole service on this machine, no AWS account. It synthesizes the stack
 * (`cdk synth`, bundles included) and runs it: every function as deployed, with its own
 * permissions. Environment: PORT (3000), MAIL_PORT (8005), DATA_DIR (.data), API_KEY
 * (generated once and kept in DATA_DIR), STAGE (api; `wp-json` serves the original's paths),
 * LOCAL_CODE (`bundle`, the default, or `source`: the TypeScript files, faster to start),
 * SES_MAX_SEND_RATE and SES_MAX_24_HOUR_SEND (the local SES's maximum sending rate and daily
 * quota, enforced as SES enforces them), DYNAMODB_STRICT (`off` takes the strict DynamoDB front
 * away, to show the difference), DYNAMODB_HOLD_MS (how long a transaction holds its items, 20)
 * and DYNAMODB_SCALE (divides the per-partition limits, 1).
 */

import { EVENT_SOURCE } from '../../shared/domain/events/event-catalogue.ts';
import type { CodeSource } from './cloud/lambda-host.ts';
import { startLocalStack } from './local-stack.ts';
import {
  describeStrictDynamoDb,
  type StrictDynamoDbSettings,
  strictDynamoDbFromEnv,
} from './stand-ins/strict-dynamodb.ts';

const number = (name: string, fallback: number): number => {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 65_535) {
    process.stderr.write(`${name} must be a port number, got ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return value;
};

const stage = process.env.STAGE || 'api';
if (!/^[A-Za-z0-9_-]{1,128}$/.test(stage)) {
  process.stderr.write(`STAGE must be letters, digits, - or _, got ${JSON.stringify(stage)}\n`);
  process.exit(2);
}
const code = (process.env.LOCAL_CODE || 'bundle') as CodeSource;
if (code !== 'bundle' && code !== 'source') {
  process.stderr.write(`LOCAL_CODE must be bundle or source, got ${JSON.stringify(code)}\n`);
  process.exit(2);
}

/** A positive number from the environment, or undefined when unset; exits on anything else. */
const positive = (name: string): number | undefined => {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  if (!(Number(value) > 0)) {
    process.stderr.write(`${name} must be a positive number, got ${JSON.stringify(value)}\n`);
    process.exit(2);
  }
  return Number(value);
};
const sesRate = positive('SES_MAX_SEND_RATE');
const sesDaily = positive('SES_MAX_24_HOUR_SEND');
let strict: StrictDynamoDbSettings;
try {
  strict = strictDynamoDbFromEnv(process.env);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}

// This process seeds the table with the SDK; its Node-version notice is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const options = {
  port: number('PORT', 3000),
  mailPort: number('MAIL_PORT', 8005),
  dataDir: process.env.DATA_DIR || '.data',
  stage,
  code,
  ...(process.env.API_KEY ? { apiKey: process.env.API_KEY } : {}),
  ...(sesRate ? { sesMaxSendRate: sesRate } : {}),
  ...(sesDaily ? { sesMax24HourSend: sesDaily } : {}),
  strictDynamoDb: strict,
};

process.stdout.write(
  `Synthesizing the stack (cdk synth${code === 'bundle' ? ', bundles' : ''})…\n`,
);
let stack: Awaited<ReturnType<typeof startLocalStack>>;
try {
  stack = await startLocalStack(options);
} catch (error) {
  process.stderr.write(
    `Could not start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}

// The stack's bus runs its template's rules; what reaches it is also shown here, one line an
// event, as a rule of an operator's own would see it (docs/api.md, "Events").
const [eventBus] = stack.cloud.stack.eventBuses();
if (eventBus && stack.cloud.eventBuses)
  stack.cloud.eventBuses.addRule({
    bus: eventBus,
    pattern: { source: [EVENT_SOURCE] },
    deliver: (event) =>
      process.stderr.write(`[event bus] ${event['detail-type']} ${JSON.stringify(event.detail)}\n`),
  });

process.stdout.write(
  [
    '',
    'serverless-newsletter is running locally',
    `  Console      ${stack.consoleUrl}`,
    `  API root     ${stack.apiRoot}`,
    `  API key      ${stack.apiKey}`,
    `  Mail viewer  ${stack.mailViewer}`,
    `  Sign-in      Cognito stand-in ${stack.cognito.endpoint} (pool ${stack.people.userPoolId}); add someone: npx newsletter --local people add you@example.com --role admin`,
    `  DynamoDB     ${stack.strictDynamoDb ? `strict front ${stack.dynamo.endpoint}: ` : ''}${describeStrictDynamoDb(strict)}`,
    `  Data         ${options.dataDir}`,
    ...(eventBus
      ? [`  Event bus    ${eventBus}: each event is printed on stderr as [event bus]`]
      : []),
    `  Functions    ${code === 'bundle' ? 'the bundles cdk synth built' : 'the TypeScript sources'}, each with its own role as synthesized`,
    '',
    'Try:',
    `  curl -s -X POST ${stack.apiRoot}/subscribe -H 'Content-Type: application/json' -d '{"email":"ada@example.com","name":"Ada"}'`,
    '',
    'Function logs follow on stderr. Ctrl-C stops everything.',
    '',
  ].join('\n'),
);

let stopping = false;
const stop = async (signal: string): Promise<void> => {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\n${signal}: stopping…\n`);
  await stack.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
