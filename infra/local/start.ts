/**
 * `npm start`: the whole service on this machine, no AWS account. Environment: PORT (3000),
 * MAIL_PORT (8005), DATA_DIR (.data), API_KEY (generated once and kept in DATA_DIR).
 */
import { setLogSink } from '../../shared/log/logger.ts';
import { startLocalStack } from './local-stack.ts';

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

const options = {
  port: number('PORT', 3000),
  mailPort: number('MAIL_PORT', 8005),
  dataDir: process.env.DATA_DIR || '.data',
  ...(process.env.API_KEY ? { apiKey: process.env.API_KEY } : {}),
};

let stack: Awaited<ReturnType<typeof startLocalStack>>;
try {
  stack = await startLocalStack(options);
} catch (error) {
  process.stderr.write(
    `Could not start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}

// Request lines go to stderr so stdout stays the short summary below.
setLogSink((line) => process.stderr.write(`${line}\n`));

process.stdout.write(
  [
    '',
    'serverless-newsletter is running locally',
    `  API root     ${stack.apiRoot}`,
    `  API key      ${stack.apiKey}`,
    `  Mail viewer  ${stack.mailViewer}`,
    `  Data         ${options.dataDir}`,
    '',
    'Try:',
    `  curl -s -X POST ${stack.apiRoot}/subscribe -H 'Content-Type: application/json' -d '{"email":"ada@example.com","name":"Ada"}'`,
    '',
    'Ctrl-C stops everything.',
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
