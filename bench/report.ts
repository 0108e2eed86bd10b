import type { Route } from '../functions/routes.ts';
import { type Bundle, expectedClients } from './bundles.ts';
import type { CapacityResult } from './capacity.ts';
import { ALTERNATIVES, DECISION_FUNCTIONS } from './decisions.ts';
import { type CapacityTarget, type CapacityUse, totalUnits } from './dynamo.ts';
import type { InitTiming } from './init-time.ts';
import type { Machine } from './machine.ts';
import type { ScalingRow } from './scaling.ts';
import { ratio } from './stats.ts';
import type { WarmResult } from './warm-child.ts';

/** One line of the results table. */
export interface Row {
  readonly area: string;
  readonly subject: string;
  readonly measured: string;
  readonly compared: string;
  readonly target: string;
  /** Undefined where there is no target. */
  readonly met?: boolean;
}

/** Targets of issues 6 and 13; figures to report against, not test assertions. */
export const TARGETS = {
  /** Every function that sends no mail. */
  bundleBytes: 400 * 1024,
  openapiBytes: 50 * 1024,
  /** A consumer calling only `add_subscriber` (function or class), against the reference bundle. */
  consumerRatio: 1.3,
  heaviestInitRatio: 1.4,
  mailLessInitRatio: 1.25,
  addSubscriberWriteUnits: 3,
  listingReadUnits: 3,
  scaleLatencyRatio: 1.2,
  warmMedianRatio: 1.3,
  /** Keyless subscribe, confirmed address over new address, median: indistinguishable. */
  keylessLatencyRatio: [0.9, 1.1],
} as const;

export const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
export const ms = (value: number): string => (Number.isFinite(value) ? value.toFixed(1) : '—');
const ms2 = (value: number): string => (Number.isFinite(value) ? value.toFixed(2) : '—');
export const times = (value: number): string =>
  Number.isFinite(value) ? `${value.toFixed(2)}×` : '—';
const units = (value: number): string => String(Math.round(value * 100) / 100);

/** `table 2, recent 1` (targets with units only). */
function byTarget(use: ReadonlyMap<CapacityTarget, number>): string {
  const parts = [...use].filter(([, value]) => value > 0).map(([t, v]) => `${t} ${units(v)}`);
  return parts.length ? parts.join(', ') : '0';
}

function capacityText(use: CapacityUse): string {
  const read = totalUnits(use.read);
  const write = totalUnits(use.write);
  return `${units(read)} RCU (${byTarget(use.read)}) · ${units(write)} WCU (${byTarget(use.write)})`;
}

/** Everything a run measured. */
export interface RunResults {
  readonly routes: readonly Route[];
  /** The yardstick: DocumentClient only, plain esbuild (REFERENCE_BUNDLING). */
  readonly reference: Bundle;
  /** The same handler built with the functions' own options. */
  readonly referenceAsFunctions: Bundle;
  /** Alternative key → function → bundle (bench/decisions.ts). */
  readonly alternatives: ReadonlyMap<string, ReadonlyMap<string, Bundle>>;
  readonly consumer: Bundle;
  /** A consumer calling `Newsletter.add_subscriber`: the class, every operation with it. */
  readonly consumerClass: Bundle;
  /** The bundles off the request path (no targets: the mailer is the one function with SES). */
  readonly consumers: ReadonlyMap<string, Bundle>;
  readonly bundles: ReadonlyMap<string, Bundle>;
  readonly init: ReadonlyMap<string, InitTiming>;
  readonly capacity: CapacityResult;
  readonly scaling: readonly ScalingRow[];
  readonly warm: readonly WarmResult[];
  /** Whether the bundles were proven identical to `cdk synth`'s assets. */
  readonly cdkCheck: { readonly ok: boolean; readonly text: string };
}

/** The one table of a run. */
export function resultRows(run: RunResults): Row[] {
  const rows: Row[] = [];
  rows.push({
    area: 'Bundle',
    subject: 'built as CDK builds them',
    measured: run.cdkCheck.text,
    compared: 'FUNCTION_BUNDLING via bench/esbuild-options.ts',
    target: 'identical',
    met: run.cdkCheck.ok,
  });
  const referenceInit = run.init.get(run.reference.name);
  const refOverhead = referenceInit?.overheadMs ?? Number.NaN;
  const refCpu = referenceInit?.overheadCpuMs ?? Number.NaN;
  rows.push({
    area: 'Bundle',
    subject: 'reference (DynamoDB document client only, plain esbuild)',
    measured: `${kb(run.reference.bytes)} (gzip ${kb(run.reference.gzipBytes)})`,
    compared: 'no source map',
    target: '—',
  });
  rows.push({
    area: 'Init',
    subject: 'reference',
    measured: `+${ms(refOverhead)} ms (CPU +${ms(refCpu)} ms)`,
    compared: `empty node ${ms(referenceInit?.emptyMs ?? Number.NaN)} ms`,
    target: '—',
  });
  const ownOptions = run.init.get(run.referenceAsFunctions.name);
  rows.push({
    area: 'Bundle',
    subject: "reference, built with the functions' options",
    measured: `${kb(run.referenceAsFunctions.bytes)}; init +${ms(ownOptions?.overheadMs ?? Number.NaN)} ms`,
    compared: `${times(ratio(run.referenceAsFunctions.bytes, run.reference.bytes))} size, ${times(ratio(ownOptions?.overheadMs ?? Number.NaN, refOverhead))} init of the reference`,
    target: '—',
  });

  const heaviest = run.routes
    .map((route) => run.init.get(route.name))
    .filter((timing): timing is InitTiming => timing !== undefined)
    .sort((a, b) => b.overheadMs - a.overheadMs)[0]?.name;
  for (const route of run.routes) {
    const bundle = run.bundles.get(route.name);
    if (!bundle) continue;
    // Mail functions carry nodemailer's MIME composer, which issue 13 chose to keep.
    const limit =
      route.name === 'openapi'
        ? TARGETS.openapiBytes
        : route.access.sendsMail
          ? undefined
          : TARGETS.bundleBytes;
    rows.push({
      area: 'Bundle',
      subject: route.name,
      measured: `${kb(bundle.bytes)} (gzip ${kb(bundle.gzipBytes)})`,
      compared: `${times(ratio(bundle.bytes, run.reference.bytes))} reference`,
      target: limit === undefined ? '—' : `≤ ${kb(limit)}`,
      ...(limit === undefined ? {} : { met: bundle.bytes <= limit }),
    });
    // Issue 14: mail is the stream mailer's job, so no API function carries SES or a MIME
    // composer unless its route says it sends mail.
    const composer = 'MIME composer';
    const carried = [
      ...bundle.clients,
      ...(bundle.packages.some((entry) => entry.name === 'nodemailer') ? [composer] : []),
    ];
    const expected = [...expectedClients(route), ...(route.access.sendsMail ? [composer] : [])];
    rows.push({
      area: 'Clients',
      subject: route.name,
      measured: carried.join(', ') || 'none',
      compared: `uses ${expected.join(', ') || 'none'}`,
      target: 'only what it uses',
      met: carried.join() === expected.join(),
    });
    const timing = run.init.get(route.name);
    if (timing) {
      const limit = route.access.sendsMail ? TARGETS.heaviestInitRatio : TARGETS.mailLessInitRatio;
      const wallRatio = ratio(timing.overheadMs, refOverhead);
      rows.push({
        area: 'Init',
        subject: `${route.name}${route.name === heaviest ? ' (heaviest)' : ''}`,
        measured: `+${ms(timing.overheadMs)} ms (CPU +${ms(timing.overheadCpuMs)} ms)`,
        compared: `${times(wallRatio)} reference (CPU ${times(ratio(timing.overheadCpuMs, refCpu))})`,
        target: `≤ ${limit}×`,
        met: wallRatio <= limit,
      });
    }
  }

  const noise = noiseRow(run, refOverhead);
  if (noise) rows.push(noise);

  for (const bundle of run.consumers.values()) {
    const timing = run.init.get(bundle.name);
    rows.push({
      area: 'Bundle',
      subject: bundle.name,
      measured: `${kb(bundle.bytes)}; init +${ms(timing?.overheadMs ?? Number.NaN)} ms`,
      compared: `${times(ratio(bundle.bytes, run.reference.bytes))} reference size, ${times(ratio(timing?.overheadMs ?? Number.NaN, refOverhead))} init; clients ${bundle.clients.join(', ') || 'none'}`,
      target: '—',
    });
  }

  const consumer = run.consumer;
  const consumerInit = run.init.get(consumer.name);
  rows.push({
    area: 'Package',
    subject: consumer.name,
    measured: `${kb(consumer.bytes)}; init +${ms(consumerInit?.overheadMs ?? Number.NaN)} ms`,
    compared: `${times(ratio(consumer.bytes, run.reference.bytes))} reference size, ${times(ratio(consumerInit?.overheadMs ?? Number.NaN, refOverhead))} init`,
    target: `≤ ${TARGETS.consumerRatio}× reference size`,
    met: ratio(consumer.bytes, run.reference.bytes) <= TARGETS.consumerRatio,
  });
  const consumerClass = run.consumerClass;
  const classInit = run.init.get(consumerClass.name);
  rows.push({
    area: 'Package',
    subject: consumerClass.name,
    measured: `${kb(consumerClass.bytes)}; init +${ms(classInit?.overheadMs ?? Number.NaN)} ms; clients ${consumerClass.clients.join(', ')}`,
    compared: `${times(ratio(consumerClass.bytes, run.reference.bytes))} reference size, ${times(ratio(classInit?.overheadMs ?? Number.NaN, refOverhead))} init; MIME composer: ${consumerClass.packages.some((entry) => entry.name === 'nodemailer') ? 'yes' : 'none'}`,
    target: `≤ ${TARGETS.consumerRatio}× reference size`,
    met: ratio(consumerClass.bytes, run.reference.bytes) <= TARGETS.consumerRatio,
  });
  const mailCode = consumer.packages.filter((entry) => /nodemailer|client-ses/.test(entry.name));
  rows.push({
    area: 'Package',
    subject: 'consumer: what it carries',
    measured: `clients ${consumer.clients.join(', ') || 'none'}`,
    compared: mailCode.length
      ? mailCode.map((entry) => entry.name).join(', ')
      : 'no SES, no MIME composer',
    target: 'DynamoDB only',
    met: consumer.clients.join() === 'dynamodb' && mailCode.length === 0,
  });

  for (const alternative of ALTERNATIVES) {
    for (const name of DECISION_FUNCTIONS) {
      const bundle = run.alternatives.get(alternative.key)?.get(name);
      const deployed = run.bundles.get(name);
      const timing = run.init.get(`${alternative.key}/${name}`);
      const deployedTiming = run.init.get(name);
      if (!bundle || !deployed) continue;
      rows.push({
        area: 'Decision',
        subject: `${name} with ${alternative.alternative}`,
        measured: `${kb(bundle.bytes)}; init +${ms(timing?.overheadMs ?? Number.NaN)} ms (${times(ratio(timing?.overheadMs ?? Number.NaN, refOverhead))} reference)`,
        compared: `deployed (${alternative.adopted}) against it: ${kb(deployed.bytes - bundle.bytes)}, ${ms((deployedTiming?.overheadMs ?? Number.NaN) - (timing?.overheadMs ?? Number.NaN))} ms`,
        target: '—',
      });
    }
  }

  for (const row of run.capacity.rows) {
    const isAdd = row.operation.startsWith('add_subscriber');
    const isListing = /^(subscribers|newsletters):/.test(row.operation);
    const write = totalUnits(row.use.write);
    const read = totalUnits(row.use.read);
    rows.push({
      area: 'Capacity',
      subject: row.operation,
      measured: capacityText(row.use),
      compared: `${row.use.calls.length} requests: ${row.use.calls.join(', ')}`,
      target: isAdd
        ? `≤ ${TARGETS.addSubscriberWriteUnits} WCU in all`
        : isListing
          ? `≤ ${TARGETS.listingReadUnits} RCU`
          : '—',
      ...(isAdd ? { met: write <= TARGETS.addSubscriberWriteUnits } : {}),
      ...(isListing ? { met: read <= TARGETS.listingReadUnits } : {}),
    });
  }

  for (const row of run.scaling) {
    const point = (p: ScalingRow['small']) =>
      `${p.subscribers.toLocaleString('en')}: ${units(p.readUnits)} RCU, ${ms2(p.medianMs)} ms (p99 ${ms(p.p99Ms)})`;
    rows.push({
      area: 'Scaling',
      subject: row.operation,
      measured: `${point(row.small)} · ${point(row.large)}`,
      compared: `units ${times(row.unitRatio)}, median latency ${times(row.latencyRatio)}`,
      target: `units 1×, latency ≤ ${TARGETS.scaleLatencyRatio}×`,
      met: row.unitRatio === 1 && row.latencyRatio <= TARGETS.scaleLatencyRatio,
    });
  }

  for (const result of run.warm) {
    if (result.scenario.startsWith('subscribe latency')) {
      const [low, high] = TARGETS.keylessLatencyRatio;
      rows.push({
        area: 'Warm',
        subject: result.scenario,
        measured: `confirmed p50 ${ms2(result.handlerMedianMs)} ms, new p50 ${ms2(result.bareMedianMs)} ms`,
        compared: `${times(result.medianRatio)} (p99 ${times(result.p99Ratio)})`,
        target: `${low}–${high}× at p50`,
        met: result.medianRatio >= low && result.medianRatio <= high,
      });
      continue;
    }
    const compared = Number.isFinite(result.bareMedianMs);
    rows.push({
      area: 'Warm',
      subject: result.scenario,
      measured: `p50 ${ms2(result.handlerMedianMs)} ms, p99 ${ms(result.handlerP99Ms)} ms`,
      compared: compared
        ? `bare SDK p50 ${ms2(result.bareMedianMs)}, p99 ${ms(result.bareP99Ms)} (${result.requests}): ` +
          `${times(result.medianRatio)}, Δ ${ms2(result.handlerMedianMs - result.bareMedianMs)} ms; p99 ${times(result.p99Ratio)}`
        : 'no DynamoDB work to compare with',
      target: compared ? `≤ ${TARGETS.warmMedianRatio}× at p50` : '—',
      ...(compared ? { met: result.medianRatio <= TARGETS.warmMedianRatio } : {}),
    });
  }
  return rows;
}

/**
 * The run's own noise: functions whose bundles are the same size to within 1% load the same
 * code but for their route, so the spread of their ratios is what chance alone does to a ratio.
 */
function noiseRow(run: RunResults, refOverhead: number): Row | undefined {
  const sized = [...run.bundles.values()].sort((a, b) => a.bytes - b.bytes);
  let best: Bundle[] = [];
  for (const first of sized) {
    const group = sized.filter((b) => b.bytes >= first.bytes && b.bytes <= first.bytes * 1.01);
    if (group.length > best.length) best = group;
  }
  const ratios = best
    .map((bundle) => ratio(run.init.get(bundle.name)?.overheadMs ?? Number.NaN, refOverhead))
    .filter(Number.isFinite);
  if (ratios.length < 3) return undefined;
  const low = Math.min(...ratios);
  const high = Math.max(...ratios);
  return {
    area: 'Init',
    subject: `noise: ${ratios.length} bundles of the same size`,
    measured: `${times(low)}–${times(high)} reference`,
    compared: `spread ${(high - low).toFixed(2)}: ${best.map((bundle) => bundle.name).join(', ')}`,
    target: '—',
  };
}

/** A Markdown table; also what the console shows. */
export function markdownTable(rows: readonly Row[]): string {
  const header = ['Area', 'Subject', 'Measured', 'Compared with', 'Target', 'Met'];
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const lines = [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map(
      (row) =>
        `| ${[row.area, row.subject, row.measured, row.compared, row.target]
          .map(cell)
          .join(' | ')} | ${row.met === undefined ? '—' : row.met ? 'yes' : '**no**'} |`,
    ),
  ];
  return lines.join('\n');
}

/** Describes the machine in one paragraph. */
export function machineText(machine: Machine, load: { start: number; end: number }): string {
  return (
    `${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(1)} GiB memory, ` +
    `${machine.os}; Node ${machine.node}, ${machine.java}; ${machine.tools}. ` +
    `Load average (1 min) ${load.start.toFixed(2)} at the start, ${load.end.toFixed(2)} at the end.`
  );
}

/** The largest packages of each bundle, from esbuild's metafile. */
export function packageLines(bundles: readonly Bundle[], top = 8): string {
  return bundles
    .map(
      (bundle) =>
        `- \`${bundle.name}\` (${kb(bundle.bytes)}): ` +
        bundle.packages
          .slice(0, top)
          .map((entry) => `${entry.name} ${kb(entry.bytes)}`)
          .join(', '),
    )
    .join('\n');
}
