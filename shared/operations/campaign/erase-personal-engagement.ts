import { inParallel } from '../../adapters/store/dynamo-batches.ts';
import {
  type DynamoEngagementEraser,
  type ErasureWalk,
  RECORD_PARTS,
} from '../../adapters/store/dynamo-engagement-eraser.ts';
import type { Dependencies } from '../dependencies.ts';

/** Records erased at once. */
const IN_FLIGHT = 8;

/** What one run of the eraser came to. */
export interface ErasureOutcome {
  /**
   * `individual`: nothing to do (and any erasure under way stops); `waiting`: the switch is
   * too recent (recorders may still write per person); `clean`: nothing stored per person;
   * `erasing`: the run's time is up, the next goes on; `erased`: the walk ended now.
   */
  readonly status: 'individual' | 'waiting' | 'clean' | 'erasing' | 'erased';
  /** Records this run erased. */
  readonly records: number;
}

export interface ErasureDependencies extends Pick<Dependencies, 'settings' | 'now' | 'log'> {
  readonly eraser: Pick<
    DynamoEngagementEraser,
    'state' | 'save' | 'nextIssue' | 'personalRecords' | 'forgetRecord' | 'forgetEngaged'
  >;
  /**
   * How long after the eraser first sees `counts` or `off` a recorder may still write per
   * person: one that read `individual` before the switch keeps it for the parameter cache's
   * lifetime, and a batch in hand for the recorder's timeout.
   */
  readonly settleMs: number;
  /** The work of one run (ms); the walk is saved after every page and goes on next run. */
  readonly budgetMs: number;
}

/**
 * Erases per-person opens and clicks once `campaign.tracking` is no longer `individual`
 * ([engagement.switch]): every first open and click on a recipient record (and the click ids
 * of the design before), and every subscriber's list of engaged issues, issue by issue, newest
 * first, page by page, in runs of bounded work that each take up where the last stopped. It
 * starts only when recorders can no longer write per person (`settleMs` after the switch was
 * first seen), and only when a recorder noted writing per person since the last erasure
 * (`marks`), or none ever finished (a table from before, whose recorder stored per-person
 * times in every mode). A switch back to `individual` stops it; switching away again starts
 * it anew. The figures stay: they count people, they name nobody.
 */
export async function erasePersonalEngagement(deps: ErasureDependencies): Promise<ErasureOutcome> {
  const mode = (await deps.settings()).campaign.tracking;
  const state = await deps.eraser.state();
  if (mode === 'individual') {
    if (state.awaySince !== undefined || state.walk !== undefined)
      await deps.eraser.save(state.version, { awaySince: null, walk: null });
    return { status: 'individual', records: 0 };
  }
  const started = deps.now().getTime();
  if (state.awaySince === undefined) {
    await deps.eraser.save(state.version, { awaySince: new Date(started).toISOString() });
    return { status: 'waiting', records: 0 };
  }
  if (started - Date.parse(state.awaySince) < deps.settleMs)
    return { status: 'waiting', records: 0 };
  let walk: ErasureWalk | undefined = state.walk;
  if (!walk) {
    if (state.marks <= state.clean) return { status: 'clean', records: 0 };
    walk = { marks: state.marks, part: 0 };
    deps.log.info('engagement_erasure_started', { marks: state.marks, mode });
  }
  let version = state.version;
  let records = 0;
  // Subscribers whose engaged issues this run removed already.
  const forgotten = new Set<number>();
  while (deps.now().getTime() - started < deps.budgetMs) {
    if (walk.issue === undefined) {
      const issue = await deps.eraser.nextIssue(walk.done);
      if (issue === undefined) {
        // Done, unless another run took over meanwhile (then it finishes).
        if (await deps.eraser.save(version, { walk: null, clean: walk.marks }))
          deps.log.info('engagement_erasure_done', { marks: walk.marks, records });
        return { status: 'erased', records };
      }
      walk = { marks: walk.marks, issue, part: 0, ...doneOf(walk) };
    }
    const issue = walk.issue as number;
    const page = await deps.eraser.personalRecords(issue, walk.part, walk.after);
    await inParallel(page.records, IN_FLIGHT, async (record) => {
      await deps.eraser.forgetRecord(record.key);
      if (forgotten.has(record.subscriberId)) return;
      forgotten.add(record.subscriberId);
      await deps.eraser.forgetEngaged(record.subscriberId);
    });
    records += page.records.length;
    walk =
      page.next !== undefined
        ? { ...walk, after: page.next }
        : walk.part + 1 < RECORD_PARTS
          ? { marks: walk.marks, issue, part: walk.part + 1, ...doneOf(walk) }
          : { marks: walk.marks, done: issue, part: 0 };
    if (!(await deps.eraser.save(version, { walk }))) return { status: 'erasing', records };
    version += 1;
  }
  return { status: 'erasing', records };
}

const doneOf = (walk: ErasureWalk): { done?: number } =>
  walk.done === undefined ? {} : { done: walk.done };
