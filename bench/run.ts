/**
 * `npm run bench`: bundle sizes and cold start, DynamoDB capacity per operation, scaling of
 * the listings, and warm handler overhead. No network, no AWS: DynamoDB Local, the local SES
 * and the parameter-store stand-in. Prints one table and writes it, with the date and the
 * machine, to docs/benchmarks.md. Options: see USAGE.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { routes } from '../functions/routes.ts';
import { FUNCTION_BUNDLING } from '../infra/cdk/constructs/newsletter-function.ts';
import { startDynamoDbLocal } from '../infra/local/stand-ins/dynamodb-local.ts';
import {
  behindStrictFront,
  strictDynamoDbFromEnv,
} from '../infra/local/stand-ins/strict-dynamodb.ts';
import {
  type Bundle,
  buildBundle,
  buildConsumers,
  buildFunctions,
  buildReference,
  PROJECT_ROOT,
} from './bundles.ts';
import { measureCapacity } from './capacity.ts';
import { type CdkCheck, checkAgainstCdk } from './cdk-check.ts';
import { ALTERNATIVES, buildDecisions } from './decisions.ts';
import { localClients } from './dynamo.ts';
import { benchSettings, KILOBYTE_ITEM_BYTES } from './fixtures.ts';
import { measureInit } from './init-time.ts';
import { describeMachine, loadAverage } from './machine.ts';
import {
  machineText,
  markdownTable,
  packageLines,
  type RunResults,
  resultRows,
  TARGETS,
} from './report.ts';
import { measureScaling } from './scaling.ts';
import { measureWarm } from './warm.ts';
import { lambdaEnvironment } from './warm-environment.ts';

const USAGE = `Usage: tsx bench/run.ts [options]
  --init-pairs N    fresh-process pairs per bundle (default 51, at least 20)
  --warm-reps N     warm calls per handler and per bare SDK call (default 500)
  --scale-reps N    listing calls per table size (default 300)
  --small N         subscribers in the small table (default 1000)
  --large N         subscribers in the large table (default 100000)
  --skip-cdk-check  do not synthesise the app to prove the bundles are CDK's (saves ~30 s)
  --out FILE        where to write the report (default docs/benchmarks.md; '-' for none)
  --keep            keep the built bundles (their folder is printed)`;

function options() {
  const { values } = parseArgs({
    options: {
      'init-pairs': { type: 'string', default: '51' },
      'warm-reps': { type: 'string', default: '500' },
      'scale-reps': { type: 'string', default: '300' },
      small: { type: 'string', default: '1000' },
      large: { type: 'string', default: '100000' },
      out: { type: 'string', default: join(PROJECT_ROOT, 'docs', 'benchmarks.md') },
      keep: { type: 'boolean', default: false },
      'skip-cdk-check': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const count = (name: keyof typeof values, minimum: number): number => {
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < minimum) {
      throw new Error(`--${name} must be an integer of at least ${minimum}\n${USAGE}`);
    }
    return value;
  };
  return {
    help: values.help === true,
    initPairs: count('init-pairs', 20),
    warmReps: count('warm-reps', 20),
    scaleReps: count('scale-reps', 20),
    small: count('small', 20),
    large: count('large', 20),
    out: String(values.out),
    keep: values.keep === true,
    cdkCheck: values['skip-cdk-check'] !== true,
  };
}

/** Warm-up calls before the timed ones (JIT, connection pools, the parameter cache). */
const WARM_UP = 100;

const started = performance.now();
const progress = (message: string): void => {
  const seconds = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[${seconds} s] ${message}\n`);
};

async function main(): Promise<void> {
  const opts = options();
  if (opts.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // AWS SDK v3 warns about Node 20 on every client; the functions run on a newer Node.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const machine = describeMachine();
  const loadAtStart = loadAverage();
  const date = new Date();
  const outdir = await mkdtemp(join(tmpdir(), 'newsletter-bench-'));
  // Removed however the run ends, failures included, unless asked to keep it.
  if (!opts.keep) process.once('exit', () => rmSync(outdir, { recursive: true, force: true }));

  progress(
    `building ${routes.length} functions, the references and the alternatives into ${outdir}`,
  );
  const reference = await buildReference(outdir);
  const referenceAsFunctions = await buildReference(
    outdir,
    FUNCTION_BUNDLING,
    "reference (functions' options)",
  );
  const functions = await buildFunctions(join(outdir, 'deployed'), FUNCTION_BUNDLING);
  const consumers = await buildConsumers(join(outdir, 'streams'), FUNCTION_BUNDLING);
  const { alternatives, consumer, consumerClass } = await buildDecisions(join(outdir, 'decisions'));
  const warmSdk = await buildBundle(
    'warm-sdk',
    join(PROJECT_ROOT, 'bench', 'warm-sdk.ts'),
    join(outdir, 'warm-sdk'),
    FUNCTION_BUNDLING,
  );

  let cdkCheck: CdkCheck = { ok: false, text: 'not checked (--skip-cdk-check)' };
  if (opts.cdkCheck) {
    progress('cdk synth, to compare its assets with these bundles');
    cdkCheck = await checkAgainstCdk(
      [...functions.values(), ...consumers.values()],
      join(outdir, 'cdk.out'),
    );
    progress(`  ${cdkCheck.text}`);
  }

  progress(`cold start: ${opts.initPairs} process pairs per bundle`);
  const initTargets: { name: string; file: string; env?: NodeJS.ProcessEnv }[] = [
    reference,
    referenceAsFunctions,
    ...functions.values(),
    ...consumers.values(),
    consumer,
    consumerClass,
    ...[...alternatives].flatMap(([key, bundles]) => {
      const nodeOptions = ALTERNATIVES.find((alternative) => alternative.key === key)?.nodeOptions;
      return [...bundles.values()].map((bundle: Bundle) => ({
        name: `${key}/${bundle.name}`,
        file: bundle.file,
        ...(nodeOptions ? { env: { ...lambdaEnvironment(), NODE_OPTIONS: nodeOptions } } : {}),
      }));
    }),
  ];
  const init = measureInit(initTargets, opts.initPairs, lambdaEnvironment(), (round) => {
    if (round % 10 === 0 || round === opts.initPairs) progress(`  round ${round}`);
  });

  progress('starting DynamoDB Local (in memory)');
  const dynamo = await behindStrictFront(
    await startDynamoDbLocal(),
    strictDynamoDbFromEnv(process.env),
  );
  let capacity: RunResults['capacity'];
  let scaling: RunResults['scaling'];
  let warm: RunResults['warm'];
  let logLines: number;
  try {
    const clients = localClients(dynamo.endpoint, { modelTransactions: true });
    const settings = benchSettings();
    progress('capacity per operation');
    capacity = await measureCapacity(clients, 'capacity', settings);
    progress(`scaling: ${opts.small} and ${opts.large} subscribers`);
    scaling = await measureScaling(clients, settings, {
      small: opts.small,
      large: opts.large,
      repetitions: opts.scaleReps,
      progress,
    });
    progress(`warm handlers: ${opts.warmReps} calls each`);
    const measured = await measureWarm(clients, settings, {
      dynamoEndpoint: dynamo.endpoint,
      bundles: Object.fromEntries([...functions].map(([name, bundle]) => [name, bundle.file])),
      sdkBundle: warmSdk.file,
      warmUp: WARM_UP,
      repetitions: opts.warmReps,
      progress,
    });
    warm = measured.results;
    logLines = measured.logLines;
    clients.raw.destroy();
  } finally {
    await dynamo.stop();
  }

  const results: RunResults = {
    routes,
    reference,
    referenceAsFunctions,
    alternatives,
    consumer,
    consumerClass,
    consumers,
    bundles: functions,
    init: new Map(init.map((timing) => [timing.name, timing])),
    capacity,
    scaling,
    warm,
    cdkCheck,
  };
  const table = markdownTable(resultRows(results));
  process.stdout.write(`\n${table}\n`);

  const load = { start: loadAtStart, end: loadAverage() };
  if (opts.out !== '-') {
    await writeFile(
      opts.out,
      document({
        date,
        machine: machineText(machine, load),
        table,
        results,
        options: opts,
        logLines,
        cdkCheck,
      }),
    );
    progress(`wrote ${opts.out}`);
  }
  if (opts.keep) progress(`bundles kept in ${outdir}`);
  progress('done');
}

function document(parts: {
  date: Date;
  machine: string;
  table: string;
  results: RunResults;
  options: ReturnType<typeof options>;
  logLines: number;
  cdkCheck: CdkCheck;
}): string {
  const o = parts.options;
  const warmCalls = parts.results.warm.length * (o.warmReps + WARM_UP);
  return `# Benchmarks

Measured by \`npm run bench\` (bench/run.ts) on ${parts.date.toISOString().slice(0, 10)}
(${parts.date.toISOString()}). No network, no AWS: DynamoDB Local, the local SES and the
parameter-store stand-in. Re-run it on your machine before quoting a figure; timings depend on
the machine and on what else it is doing.

**Machine:** ${parts.machine}

KB = 1,024 bytes. RCU/WCU = read/write capacity units. Ratios are the first figure over the
second.

${parts.table}

## How each figure is made

- **Bundle**: each function (\`functions/<route>.ts\`) is built with esbuild from
  \`FUNCTION_BUNDLING\`, the options \`NewsletterFunction\` hands to CDK
  (infra/cdk/constructs/newsletter-function.ts), translated the way aws-cdk-lib turns them into
  esbuild flags (bench/esbuild-options.ts). This run: ${parts.cdkCheck.text}. The reference
  (bench/reference-handler.ts, a two-line handler importing only \`DynamoDBDocumentClient\`) is
  built with plain esbuild as ../shared/spec/toolchain.md measures it
  (\`REFERENCE_BUNDLING\` in bench/bundles.ts): a yardstick that does not move with our
  options; the row after it shows the same handler built with the functions' options. Size is
  the minified \`index.mjs\` only; the source map is a separate file. gzip is level 9.
- **Clients**: the \`@aws-sdk/client-*\` packages with code in the bundle (esbuild metafile),
  against what the route table says the function uses: DynamoDB when it touches the table, SES
  when it sends mail. SSM never: the Parameters and Secrets extension reads the parameters.
- **Package**: bench/consumer-handler.ts, another team's Lambda that imports and calls only
  \`add_subscriber\`, and bench/consumer-class-handler.ts, the same calling
  \`Newsletter.add_subscriber\` (the function class holds every operation, campaigns included,
  so a bundler keeps them all), bundled from the package's sources with plain esbuild, as a
  consumer would (test/package/ packs, installs and bundles the real tarball).
- **Decision**: \`subscribers-list\` and \`subscribe\` rebuilt with one adopted choice undone
  (bench/decisions.ts; the swapped-in modules are in bench/variants/), timed in the same rounds
  as the deployed bundles. "deployed" is what the adopted choice saves: bytes and init ms.
- **Init**: ${o.initPairs} pairs per bundle of fresh \`node\` processes, one importing the bundle
  and checking that \`handler\` is a function, the other an empty \`node -e 0\`, run right
  after each other, rounds rotating over the bundles, both with the functions' environment (no
  \`NODE_OPTIONS\`: source maps are built but not enabled at run time). Overhead is the median of the pairwise
  wall-clock differences; CPU is the same for user + system time, which a busy machine
  disturbs less. Ratios are to the reference's overhead. The noise row gives the spread of the
  ratios of bundles that are the same size and differ only in their route: what chance alone
  does to a ratio in this run. Local Node ${process.version}; Lambda runs Node 24 on arm64,
  so absolute figures differ there, the ratios less.
- **Capacity**: each operation once through the function class (\`Newsletter\`, configured with
  a \`DynamoStore\` whose \`CapacityListener\` receives ReturnConsumedCapacity=INDEXES, a
  recording mailer and the test settings with four profile fields) against DynamoDB Local.
  The 1 KB subscriber is sized to a ${KILOBYTE_ITEM_BYTES.toLocaleString('en')}-byte item (keys
  and process state included) for a seven-digit id; the one written had a shorter id and
  ${parts.results.capacity.kilobyteItemBytes} bytes. The listings read
  20 such subscribers and 40 newsletter issues. Public-form calls are keyless with a client IP
  (rate limit on). DynamoDB Local reports units per table and index but not reads and writes
  apart (they follow from the request), and it under-reports transactions of more than one
  item: requests marked \`*\` are TransactWriteItems whose units are computed by DynamoDB's
  documented rules (2× per item and per index entry written, 1 KB units) from the request and
  the items it replaces (bench/dynamo.ts).
- **Scaling**: two tables in the same DynamoDB Local, one with ${o.small.toLocaleString('en')} and
  one with ${o.large.toLocaleString('en')} 1 KB subscribers (BatchWriteItem, the item shape the
  store writes, checked against an item \`add_subscriber\` wrote). Each listing is called
  ${o.scaleReps} times per table (after 30 warm-up calls), alternating between the tables call
  by call. Units are those of every call (they never varied); latency is the median.
- **Warm**: each function's deployed bundle is imported in one process and its handler called
  with API Gateway REST proxy events (the local cloud's, infra/local/cloud/api-gateway.ts), ${o.warmReps} times after
  ${WARM_UP} warm-up calls, with the stack's environment: DynamoDB Local, the parameter-store stand-in
  holding the API key (SecureString) and the settings, read through the Parameters and Secrets
  extension stand-in (infra/local/cloud/parameters-extension.ts) and cached by the function as
  deployed,
  the local SES. Right next to each call, alternating which goes first, a bare SDK call does
  the same DynamoDB requests with the functions' own client factory and SDK build
  (bench/warm-sdk.ts bundled with the same options); items a call deletes or changes are put
  back before each call, untimed. Δ is the difference of the medians: the handler's own work
  (parsing, validation, key check, middy, logging) per call. The handlers' log lines (${parts.logLines.toLocaleString('en')} for
  ${warmCalls.toLocaleString('en')} calls) go to a pipe, as on Lambda. DynamoDB Local answers in
  milliseconds, much like DynamoDB from inside a region, but slower for writes.

## Largest packages per bundle

From esbuild's metafile (bytes in the minified output).

${packageLines([parts.results.reference, ...parts.results.bundles.values(), parts.results.consumer, parts.results.consumerClass])}

${DECISIONS}

Targets (issues 6 and 13): bundle of every function that sends no mail ≤
${TARGETS.bundleBytes / 1024} KB, \`openapi\` ≤ ${TARGETS.openapiBytes / 1024} KB, a consumer
calling only \`add_subscriber\` ≤ ${TARGETS.consumerRatio}× the reference; init overhead of the heaviest
function ≤ ${TARGETS.heaviestInitRatio}× the reference's and of every function that sends no
mail ≤ ${TARGETS.mailLessInitRatio}×; \`add_subscriber\` of a 1 KB subscriber ≤
${TARGETS.addSubscriberWriteUnits} WCU in all; \`subscribers\` and \`newsletters\` ≤
${TARGETS.listingReadUnits} RCU, 100k/1k ratio of units 1 and of latency ≤
${TARGETS.scaleLatencyRatio}; warm handler ≤ ${TARGETS.warmMedianRatio}× the bare SDK call at
the median.
`;
}

/** The decisions of issue 13 on bench/proposals/ (since deleted) and on what replaced it. */
const DECISIONS = `## Decisions

Issue 13 asked for a decision on every proposal the previous round left in bench/proposals/.
The folder is deleted; what was adopted lives in the sources, what was not is gone. Figures of
the proposals not adopted are from that round's \`npm run bench -- --proposals\` (2026-11-22,
same machine, 31 pairs per bundle); the rest are rows of the table above.

- **Parameters: the AWS Parameters and Secrets Lambda Extension** (adopted). The functions
  read the key and the settings from the extension over localhost
  (shared/adapters/parameters/extension-source.ts), so no SSM client is bundled; the stack adds
  the layer with its cache off (CachedParameters keeps values for \`parameterCacheSeconds\`),
  and the role grants \`ssm:GetParameter\`. Keeping \`@aws-sdk/client-ssm\` would have been
  acceptable too: the "Decision" rows with it show its cost. The local cloud runs an extension
  stand-in per function that calls SSM as the function's role, so its grants are tested.
- **Hand-written SigV4 SSM client** (C1, rejected): it saved 81.9 KB, but owning a request
  signer is the wrong trade, and the extension saves more without one.
- **Hand-written MIME writer** (C3, rejected): it saved 136.0 KB in the mail functions;
  nodemailer's MailComposer stays. Since the outbox (issue 14) only the stream mailer carries
  it, off the request path, and it has no bundle target for that reason.
- **Environment credentials only** (B2, adopted): \`@aws-sdk/credential-provider-node\` is aliased
  to infra/cdk/bundling/lambda-credentials.ts (\`fromEnv\`) in \`FUNCTION_BUNDLING\`; Lambda
  always provides the role's credentials in the environment. Adopted because the deployed
  bundles are tested with it: the local cloud runs cdk.out's bundles with only environment
  credentials. The "credential chain" rows show what it saves.
- **Multipart through \`Response.formData()\`** (C2, rejected after adoption): that round
  measured 27.3 KB and 3.2 ms less than busboy, but Node's parser (undici) rejects well-framed
  bodies whose values contain the boundary token (nodejs/undici#5561, open): the honeypot test
  with a one-character boundary found it. \`@fastify/busboy\` stays;
  test/unit/http/parse-request.test.ts holds the cases.
- **\`openapi\` as a handler of its own** (C5, adopted): it imports the document and the
  response helpers only, no client, no logger; that round measured 546.1 KB and +76.4 ms as
  deployed then, 24.5 KB and +9.8 ms alone.
- **SES client built on first send** (C4, not adopted): no gain above noise (-2.8 ms against a
  spread of 0.05×); moot now that only the mail functions build an SES client.
- **\`keepNames: false\`** (B1, not adopted): 33 KB and about 5 ms, but log lines and 500 causes
  name error classes, and the SDK's exceptions are told apart by name.
- **Source maps at run time** (not adopted): \`--enable-source-maps\` made every function parse
  its map on each cold start; the "NODE_OPTIONS" rows show the cost. The maps are still built
  (cdk.out), and \`keepNames\` keeps class and function names readable in traces.
- **Powertools Logger and Metrics** (adopted for issue 13's observability): the "no logger, no
  metrics" rows show their cost in bytes and init time.`;

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
