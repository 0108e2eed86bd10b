import { randomUUID } from 'node:crypto';
import type { MailKind } from '../adapters/mail/mail-port.ts';
import type { SubscriberWrites } from '../adapters/store/store-port.ts';
import { DependencyError, type NewsletterError, newsletterError } from '../domain/errors.ts';
import { type OnConfirm, type OutboxMail, outboxMail } from '../domain/outbox.ts';
import type { Settings } from '../domain/settings-schema.ts';
import type { SubscriberRecord } from '../domain/subscriber.ts';
import { splitExpiredTokens } from '../domain/tokens.ts';
import type { CallContext, Dependencies } from './dependencies.ts';

/** The outcome of committing a change: the record as written, or why it was not. */
export type CommitResult =
  | { readonly kind: 'written'; readonly record: SubscriberRecord }
  | { readonly kind: 'conflict' }
  | { readonly kind: 'failed'; readonly error: NewsletterError };

/** Where links in mails point: the settings' public base URL wins over the request's root. */
export function linkBase(settings: Settings, context: CallContext): string | undefined {
  return settings.public_base_url || context.apiRoot || undefined;
}

/** Whether a mail kind carries a link, and so needs a link base. */
const needsLink = (kind: MailKind): boolean => kind !== 'admin';

/**
 * Writes a subscriber change decided by the rules together with the mails it starts, as
 * outbox items in the same transaction: the mailer function sends them from the table's
 * stream, so the caller's answer never waits for (or fails with) the mail service. The write
 * is conditional on the version read (or on the address being new), so of racing callers
 * exactly one commits and the others recompute. Expired tokens are dropped on the way.
 */
export async function commitChange(
  deps: Pick<Dependencies, 'store' | 'now' | 'log'>,
  settings: Settings,
  context: CallContext,
  current: SubscriberRecord | undefined,
  draft: SubscriberRecord,
  mails: readonly MailKind[],
  { settlesRequest, onConfirm }: { settlesRequest?: string; onConfirm?: OnConfirm } = {},
): Promise<CommitResult> {
  const now = deps.now();
  const base = linkBase(settings, context);
  if (mails.some(needsLink) && !base) {
    deps.log.error('links_unavailable', {
      reason: 'no request root and no public_base_url in the settings',
    });
    return {
      kind: 'failed',
      error: newsletterError(
        'internal_error',
        'Links cannot be built: set public_base_url in the settings.',
      ),
    };
  }

  const { live: tokens, expired } = splitExpiredTokens(draft.tokens, now);
  const id = current?.id ?? (await deps.store.nextId('subscriber'));
  const outbox: OutboxMail[] = mails.map((kind) =>
    outboxMail(
      kind,
      { email: draft.email, id },
      base,
      now,
      kind === 'activation' ? onConfirm : undefined,
    ),
  );
  const activation = outbox.find((mail) => mail.kind === 'activation');
  const { confirm_token: confirm, activation_outbox: previous, ...rest } = draft;
  const record: SubscriberRecord = {
    ...rest,
    id,
    // The activation token is kept only while it lives.
    ...(confirm !== undefined && tokens[confirm] !== undefined ? { confirm_token: confirm } : {}),
    // A new activation supersedes the one before: its mail is skipped if still unsent.
    ...(activation
      ? { activation_outbox: activation.mail_id }
      : previous
        ? { activation_outbox: previous }
        : {}),
    tokens,
    version: (current?.version ?? 0) + 1,
    change_id: randomUUID(),
    // Becoming confirmed is dated: a campaign already running does not reach this person.
    ...(draft.status === 'C' && current !== undefined && current.status !== 'C'
      ? { confirmed_at: now.toISOString() }
      : {}),
  };
  const writes: SubscriberWrites = {
    tokens: { put: [], delete: expired },
    outbox,
    ...(settlesRequest ? { settlesRequest } : {}),
  };
  if (!(await writeOnce(deps, record, current, writes))) return { kind: 'conflict' };
  return { kind: 'written', record };
}

/**
 * Writes the change; true when it is stored. A write whose answer was lost (the SDK gave up:
 * DependencyError) may still have landed, mails and all: the stored version then carries this
 * change's id, and the caller goes on as if the answer had come.
 */
async function writeOnce(
  deps: Pick<Dependencies, 'store'>,
  record: SubscriberRecord,
  current: SubscriberRecord | undefined,
  writes: SubscriberWrites,
): Promise<boolean> {
  try {
    return current
      ? await deps.store.replaceSubscriber(record, current, writes)
      : await deps.store.createSubscriber(record, writes);
  } catch (error) {
    if (!(error instanceof DependencyError)) throw error;
    const stored = await deps.store.getSubscriber(record.email).catch(() => undefined);
    if (stored?.change_id === record.change_id) return true;
    throw error;
  }
}
