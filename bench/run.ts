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
import {
  FUNCTION_BUNDLING,
  FUNCTION_NODE_OPTIONS,
} from '../infra/cdk/constructs/newsletter-function.ts';
import { startDynamoDbLocal } from '../infra/local/stand-ins/dynamodb-local.ts';
import { buildAll, buildBundle, PROJECT_ROOT } from './bundles.ts';
import { measureCapacity } from './capacity.ts';
import { type CdkCheck, checkAgainstCdk } from './cdk-check.ts';
import { localClients } from './dynamo.ts';
import { benchSettings, KILOBYTE_ITEM_BYTES } from './fixtures.ts';
import { measureInit } from './init-time.ts';
import { describeMachine, loadAverage } from './machine.ts';
import { measureProposals, type ProposalResults, proposalSection } from './proposals.ts';
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

const USAGE = `Usage: tsx bench/run.ts [options]
  --init-pairs N    fresh-process pairs per bundle (default 51, at least 20)
  --warm-reps N     warm calls per handler and per bare SDK call (default 500)
  --scale-reps N    listing calls per table size (default 300)
  --small N         subscribers in the small table (default 1000)
  --large N         subscribers in the large table (default 100000)
  --proposals       also build and time the proposed changes (bench/proposals.ts)
  --proposal-pairs N  fresh-process pairs per bundle there (default 31)
  --skip-cdk-check  do not synthesise the app to prove the bundles are CDK's (saves ~30 s)
  --out FILE        where to write the report (default docs/benchmarks.md; '-' for none)
  --keep            keep the built bundles (their folder is printed)`;

function options() {
  const { values } = parseArgs({
    options: {
      'init-pairs': { type: 'string', default: '51' },
      'warm-reps': { type: 'string', default: '500' },
      'proposal-pairs': { type: 'string', default: '31' },
      'scale-reps': { type: 'string', default: '300' },
      small: { type: 'string', default: '1000' },
      large: { type: 'string', default: '100000' },
      proposals: { type: 'boolean', default: false },
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
    proposals: values.proposals === true,
    proposalPairs: count('proposal-pairs', 10),
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

/** The environment a function's process starts with, as far as module loading cares. */
function lambdaEnvironment(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    NODE_OPTIONS: FUNCTION_NODE_OPTIONS,
    AWS_REGION: 'us-east-1',
    AWS_LAMBDA_FUNCTION_NAME: 'bench',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

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

  progress(`building ${routes.length} functions and the reference into ${outdir}`);
  const { reference, functions } = await buildAll(join(outdir, 'deployed'), FUNCTION_BUNDLING);
  const warmSdk = await buildBundle(
    'warm-sdk',
    join(PROJECT_ROOT, 'bench', 'warm-sdk.ts'),
    join(outdir, 'warm-sdk'),
    FUNCTION_BUNDLING,
  );

  let cdkCheck: CdkCheck = { ok: false, text: 'not checked (--skip-cdk-check)' };
  if (opts.cdkCheck) {
    progress('cdk synth, to compare its assets with these bundles');
    cdkCheck = await checkAgainstCdk([...functions.values()], join(outdir, 'cdk.out'));
    progress(`  ${cdkCheck.text}`);
  }

  progress(`cold start: ${opts.initPairs} process pairs per bundle`);
  const initTargets = [reference, ...functions.values()];
  const init = measureInit(initTargets, opts.initPairs, lambdaEnvironment(), (round) => {
    if (round % 10 === 0 || round === opts.initPairs) progress(`  round ${round}`);
  });

  progress('starting DynamoDB Local (in memory)');
  const dynamo = await startDynamoDbLocal();
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

  let proposals: ProposalResults | undefined;
  if (opts.proposals) {
    progress('proposals: building and timing the proposed changes');
    proposals = await measureProposals(join(outdir, 'proposals'), {
      pairs: opts.proposalPairs,
      env: lambdaEnvironment(),
      progress,
    });
  }

  const results: RunResults = {
    routes,
    reference,
    bundles: functions,
    init: new Map(init.map((timing) => [timing.name, timing])),
    capacity,
    scaling,
    warm,
    cdkCheck,
  };
  const table = markdownTable(resultRows(results));
  process.stdout.write(`\n${table}\n`);
  const proposalText = proposals ? proposalSection(proposals) : undefined;
  if (proposalText) process.stdout.write(`\n${proposalText.table}\n`);

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
        ...(proposalText ? { proposals: proposalText.markdown } : {}),
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
  proposals?: string;
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

- **Bundle**: each function (\`functions/<route>.ts\`) and the reference (bench/reference-handler.ts,
  a two-line handler importing only \`DynamoDBDocumentClient\`) are built with esbuild from
  \`FUNCTION_BUNDLING\`, the options \`NewsletterFunction\` hands to CDK
  (infra/cdk/constructs/newsletter-function.ts), translated the way aws-cdk-lib turns them into
  esbuild flags (bench/esbuild-options.ts). This run: ${parts.cdkCheck.text}. Size is the
  minified \`index.mjs\` only; the source map is a separate file. gzip is level 9.
- **Clients**: the \`@aws-sdk/client-*\` packages with code in the bundle (esbuild metafile),
  against what the route table says the function uses: DynamoDB when it touches the table, SES
  when it sends mail, SSM when it checks the key or reads the settings.
- **Init**: ${o.initPairs} pairs per bundle of fresh \`node\` processes, one importing the bundle
  and checking that \`handler\` is a function, the other an empty \`node -e 0\`, run right
  after each other, rounds rotating over the bundles. Both run with the functions'
  \`NODE_OPTIONS\` (\`${FUNCTION_NODE_OPTIONS}\`). Overhead is the median of the pairwise
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
  with API Gateway REST proxy events (infra/local/proxy-event.ts), ${o.warmReps} times after
  ${WARM_UP} warm-up calls, with the stack's environment: DynamoDB Local, the parameter-store stand-in
  holding the API key (SecureString) and the settings (cached by the function as deployed),
  the local SES. Right next to each call, alternating which goes first, a bare SDK call does
  the same DynamoDB requests with the functions' own client factory and SDK build
  (bench/warm-sdk.ts bundled with the same options); items a call deletes or changes are put
  back before each call, untimed. Δ is the difference of the medians: the handler's own work
  (parsing, validation, key check, middy, logging) per call. The handlers' log lines (${parts.logLines.toLocaleString('en')} for
  ${warmCalls.toLocaleString('en')} calls) go to a pipe, as on Lambda. DynamoDB Local answers in
  milliseconds, much like DynamoDB from inside a region, but slower for writes.

## Largest packages per bundle

From esbuild's metafile (bytes in the minified output).

${packageLines([parts.results.reference, ...parts.results.bundles.values()])}
${parts.proposals ? `\n${parts.proposals}\n` : ''}
Targets (issue 6): bundle ≤ ${TARGETS.bundleBytes / 1024} KB; init overhead of the heaviest
function ≤ ${TARGETS.heaviestInitRatio}× the reference's and of every function that sends no
mail ≤ ${TARGETS.mailLessInitRatio}×; \`add_subscriber\` of a 1 KB subscriber ≤
${TARGETS.addSubscriberWriteUnits} WCU in all; \`subscribers\` and \`newsletters\` ≤
${TARGETS.listingReadUnits} RCU, 100k/1k ratio of units 1 and of latency ≤
${TARGETS.scaleLatencyRatio}; warm handler ≤ ${TARGETS.warmMedianRatio}× the bare SDK call at
the median.
`;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
