import type { Route } from '../functions/routes.ts';
import { type Bundle, expectedClients } from './bundles.ts';
import type { CapacityResult } from './capacity.ts';
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

/** Targets of issue 6; figures to report against, not test assertions. */
export const TARGETS = {
  bundleBytes: 400 * 1024,
  heaviestInitRatio: 1.4,
  mailLessInitRatio: 1.25,
  addSubscriberWriteUnits: 3,
  listingReadUnits: 3,
  scaleLatencyRatio: 1.2,
  warmMedianRatio: 1.3,
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
  readonly reference: Bundle;
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
    subject: 'reference (DynamoDB document client only)',
    measured: `${kb(run.reference.bytes)} (gzip ${kb(run.reference.gzipBytes)})`,
    compared: `map ${kb(run.reference.mapBytes)} not counted`,
    target: '—',
  });
  rows.push({
    area: 'Init',
    subject: 'reference',
    measured: `+${ms(refOverhead)} ms (CPU +${ms(refCpu)} ms)`,
    compared: `empty node ${ms(referenceInit?.emptyMs ?? Number.NaN)} ms`,
    target: '—',
  });

  const heaviest = [...run.init.values()]
    .filter((timing) => timing.name !== run.reference.name)
    .sort((a, b) => b.overheadMs - a.overheadMs)[0]?.name;
  for (const route of run.routes) {
    const bundle = run.bundles.get(route.name);
    if (!bundle) continue;
    rows.push({
      area: 'Bundle',
      subject: route.name,
      measured: `${kb(bundle.bytes)} (gzip ${kb(bundle.gzipBytes)})`,
      compared: `${times(ratio(bundle.bytes, run.reference.bytes))} reference`,
      target: `≤ ${kb(TARGETS.bundleBytes)}`,
      met: bundle.bytes <= TARGETS.bundleBytes,
    });
    const expected = expectedClients(route);
    rows.push({
      area: 'Clients',
      subject: route.name,
      measured: bundle.clients.join(', ') || 'none',
      compared: `uses ${expected.join(', ') || 'none'}`,
      target: 'only what it uses',
      met: bundle.clients.join() === expected.join(),
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
