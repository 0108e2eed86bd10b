// The inside of one local Lambda execution environment: a plain Node process (no TypeScript
// loader unless the host adds one) that imports the function's handler module once, as Lambda's
// init phase does, then runs one invocation at a time as the host sends them over IPC.
// Plain JavaScript on purpose: a deployed bundle must start without any help from our tooling.
import { pathToFileURL } from 'node:url';

const [modulePath, exportName] = process.argv.slice(2);

/** Lambda's error shape: errorType, errorMessage, trace. */
function describe(error) {
  if (error instanceof Error) {
    return {
      errorType: error.name,
      errorMessage: error.message,
      trace: String(error.stack ?? '').split('\n'),
    };
  }
  return { errorType: typeof error, errorMessage: String(error), trace: [] };
}

let handler;
try {
  const module = await import(pathToFileURL(modulePath).href);
  handler = module[exportName];
  if (typeof handler !== 'function') {
    throw Object.assign(new Error(`${modulePath} does not export a function ${exportName}`), {
      name: 'Runtime.HandlerNotFound',
    });
  }
  process.send({ type: 'ready' });
} catch (error) {
  process.send({ type: 'init-error', error: describe(error) }, () => process.exit(1));
}

process.on('message', async (message) => {
  if (message?.type !== 'invoke') return;
  const { id, event, context: fields } = message;
  const context = {
    ...fields,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, fields.deadlineMs - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
  // Lambda sets the invocation's X-Ray trace id in the environment; the AWS SDK sends it on
  // every call as X-Amzn-Trace-Id, which tells one invocation's calls from another's.
  const seconds = Math.floor(Date.now() / 1000).toString(16);
  process.env._X_AMZN_TRACE_ID = `Root=1-${seconds}-${id.replaceAll('-', '').slice(0, 24)};Sampled=0`;
  try {
    const result = await handler(event, context);
    process.send({ type: 'result', id, result: result === undefined ? null : result });
  } catch (error) {
    process.send({ type: 'error', id, error: describe(error) });
  }
});

process.on('disconnect', () => process.exit(0));
