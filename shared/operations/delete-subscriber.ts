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
 * `delete_subscriber`: removes the subscriber and every token it owns in one transaction,
 * conditional on the version read, so a token minted meanwhile cannot be left behind.
 */
export async function deleteSubscriber(
  deps: Dependencies,
  raw: RawParameters,
): Promise<DeleteResult | NewsletterError> {
  const call = parseEmailParameters(raw);
  if (isNewsletterError(call)) return call;
  return retryOnConflict('delete_subscriber', deps.log, async () => {
    const current = await deps.store.getSubscriber(call.email);
    if (!current)
      return newsletterError('not_found', `No subscriber has the address ${call.email}.`);
    if (!(await deps.store.deleteSubscriber(current))) return CONFLICT;
    return { deleted: true as const, email: call.email };
  });
}
