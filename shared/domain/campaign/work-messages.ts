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

/** Most addresses one test send goes to. */
export const MAX_TEST_ADDRESSES = 5;

const testAddresses = v.pipe(
  v.array(v.pipe(v.string(), v.minLength(3), v.maxLength(254))),
  v.minLength(1),
  v.maxLength(MAX_TEST_ADDRESSES),
);

/**
 * A test send of an issue ([campaign.test-send]): the planner hands it to the workers, which
 * send it through the same renderer and headers, with a test marker, and record nothing.
 * `nonce` tells two test sends of the same addresses apart (queue deduplication).
 */
export const TestMessageSchema = v.strictObject({
  kind: v.literal('test'),
  newsletter_id: id,
  to: testAddresses,
  nonce: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  /** `{api_root}` the test mail's (inert) unsubscribe link points to. */
  link_base: v.pipe(v.string(), v.url()),
});

/** Work of the planner queue. */
export const PlannerMessageSchema = v.variant('kind', [
  PlanMessageSchema,
  WalkMessageSchema,
  TestMessageSchema,
]);

/** Most recipients one send message carries. */
export const CHUNK_SIZE = 100;

/**
 * Recipients for a worker to send to, with the addresses the planner read with them (a
 * recipient record keeps no address). `chunk` is the first subscriber id of the planned chunk
 * they belong to (its key, with the run): the unit a worker claims. `throttled` counts the
 * rounds this work was put back because SES throttled or was away, for the backoff.
 */
export const ChunkMessageSchema = v.strictObject({
  newsletter_id: id,
  run: id,
  chunk: id,
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
export type TestMessage = v.InferOutput<typeof TestMessageSchema>;
export type ChunkMessage = v.InferOutput<typeof ChunkMessageSchema>;
/** One recipient of a chunk. */
export type ChunkRecipient = ChunkMessage['recipients'][number];

/**
 * Splits a page's recipients (in id order) into chunks of at most CHUNK_SIZE, each named by
 * its first subscriber id.
 */
export function chunkMessages(
  newsletterId: number,
  run: number,
  recipients: readonly ChunkRecipient[],
  size = CHUNK_SIZE,
): ChunkMessage[] {
  const chunks: ChunkMessage[] = [];
  for (let start = 0; start < recipients.length; start += size) {
    const members = recipients.slice(start, start + size);
    chunks.push({
      newsletter_id: newsletterId,
      run,
      chunk: (members[0] as ChunkRecipient).id,
      recipients: members,
      throttled: 0,
    });
  }
  return chunks;
}

/** Work of the workers' queue: recipients of a run, or a test send. */
export const SenderMessageSchema = v.union([ChunkMessageSchema, TestMessageSchema]);
export type SenderMessage = v.InferOutput<typeof SenderMessageSchema>;
