import * as v from 'valibot';
import { isNewsletterError, type NewsletterError, newsletterError } from '../domain/errors.ts';
import type { RawParameters } from '../domain/parameters/normalise-parameters.ts';
import { parseEmailParameters } from '../domain/parameters/parse-parameters.ts';
import type { Dependencies } from './dependencies.ts';
import { CONFLICT, retryOnConflict } from './retry-on-conflict.ts';

/** What `delete_subscriber` returns. */
export const DeleteResultSchema = v.pipe(
  v.strictObject({ deleted: v.literal(true), email: v.string() }),
  v.title('DeleteResult'),
);

/** What `delete_subscriber` returns. */
export type DeleteResult = Readonly<v.InferOutput<typeof DeleteResultSchema>>;

/**
 * `delete_subscriber`: erases their opens and clicks ([engagement.erase]: the first open and
 * click on each recipient record), then removes the subscriber and every token it owns in one
 * transaction, conditional on the version read, so a token minted meanwhile cannot be left
 * behind, then erases once more what came in between; every event of theirs that comes later
 * is dropped. The issue's
 * figures (counts, not people) stay.
 */
export async function deleteSubscriber(
  deps: Dependencies,
  raw: RawParameters,
): Promise<DeleteResult | NewsletterError> {
  const call = parseEmailParameters(raw);
  if (isNewsletterError(call)) return call;
  let erased = 0;
  const outcome = await retryOnConflict('delete_subscriber', deps.log, async () => {
    const current = await deps.store.getSubscriber(call.email);
    if (!current)
      return newsletterError('not_found', `No subscriber has the address ${call.email}.`);
    // Erased first: an outage here answers 503 with the subscriber still there, so the
    // caller's retry erases and deletes; nothing is left half-done.
    erased += (await deps.engagement?.erase(current.id)) ?? 0;
    if (!(await deps.store.deleteSubscriber(current))) return CONFLICT;
    return current.id;
  });
  if (isNewsletterError(outcome)) return outcome;
  // Again after the delete: an event recorded between the erasure and the delete is in the
  // list the erasure reads; later ones are dropped (the subscriber is gone).
  const issues = erased + ((await deps.engagement?.erase(outcome)) ?? 0);
  if (issues > 0) deps.log.info('engagement_erased', { subscriber_id: outcome, issues });
  return { deleted: true as const, email: call.email };
}
