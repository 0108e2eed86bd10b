import * as v from 'valibot';

const id = v.pipe(v.number(), v.integer(), v.minValue(1));
const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/**
 * Plan one page of a run's recipients from the subscriber index: the subscribers with ids
 * after `after` (docs/storage.md, "Campaigns"). Each page's message is sent by the one that
 * planned the page before it; they travel in the campaign's FIFO message group, so one page
 * of a campaign is planned at a time.
 */
export const PlanMessageSchema = v.strictObject({
  kind: v.literal('plan'),
  newsletter_id: id,
  run: id,
  page: count,
  after: count,
  /**
   * The walk generation it was queued under: part of its deduplication, so that a resume queues
   * the next page afresh even while the page's earlier message is remembered by the queue.
   */
  walk: count,
});

/**
 * Walk the recipient records of a campaign after subscriber id `after`, queueing the ones still
 * unsent (a resume, or a repair by the sweeper). `walk` is the generation the campaign's
 * record must still name: a newer resume makes older walks stop.
 */
export const WalkMessageSchema = v.strictObject({
  kind: v.literal('walk'),
  newsletter_id: id,
  run: id,
  walk: count,
  after: count,
});

/** Work of the planner queue. */
export const PlannerMessageSchema = v.variant('kind', [PlanMessageSchema, WalkMessageSchema]);

/** Most recipients one send message carries. */
export const CHUNK_SIZE = 100;

/**
 * Recipients for a worker to send to, with the addresses the planner read with them (a
 * recipient record keeps no address). `throttled` counts the rounds this work was put back
 * because SES throttled or was away, for the backoff.
 */
export const ChunkMessageSchema = v.strictObject({
  newsletter_id: id,
  run: id,
  recipients: v.pipe(
    v.array(v.strictObject({ id, email: v.pipe(v.string(), v.minLength(3), v.maxLength(254)) })),
    v.minLength(1),
    v.maxLength(CHUNK_SIZE),
  ),
  throttled: v.optional(count, 0),
});

export type PlanMessage = v.InferOutput<typeof PlanMessageSchema>;
export type WalkMessage = v.InferOutput<typeof WalkMessageSchema>;
export type PlannerMessage = v.InferOutput<typeof PlannerMessageSchema>;
export type ChunkMessage = v.InferOutput<typeof ChunkMessageSchema>;
/** One recipient of a chunk. */
export type ChunkRecipient = ChunkMessage['recipients'][number];

/** Splits recipients into chunk messages of at most CHUNK_SIZE. */
export function chunkMessages(
  newsletterId: number,
  run: number,
  recipients: readonly ChunkRecipient[],
  throttled = 0,
): ChunkMessage[] {
  const chunks: ChunkMessage[] = [];
  for (let start = 0; start < recipients.length; start += CHUNK_SIZE) {
    chunks.push({
      newsletter_id: newsletterId,
      run,
      recipients: recipients.slice(start, start + CHUNK_SIZE),
      throttled,
    });
  }
  return chunks;
}
