// Preloaded (`--import`) into every execution environment of a test stack that asks for it:
// wraps crypto.timingSafeEqual so that each comparison the deployed bundle makes prints one
// line with the lengths it compared (never the values), which the test reads from the
// function's log. Behaviour is unchanged: the real comparison runs.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const crypto = createRequire(import.meta.url)('node:crypto');
const real = crypto.timingSafeEqual;
crypto.timingSafeEqual = (left, right) => {
  process.stdout.write(
    `${JSON.stringify({ observed: 'timingSafeEqual', left: left.byteLength, right: right.byteLength })}\n`,
  );
  return real(left, right);
};
// ESM imports of node:crypto (the bundle's) see the wrapped function too.
syncBuiltinESMExports();
