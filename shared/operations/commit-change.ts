import type { DueMail, MailKind } from '../adapters/mail/mail-port.ts';
import type { TokenRecord } from '../adapters/store/store-port.ts';
import {
  DependencyError,
  describeError,
  type NewsletterError,
  newsletterError,
  unavailable,
} from '../domain/errors.ts';
import { pageLink } from '../domain/links.ts';
import type { Settings } from '../domain/settings-schema.ts';
import type { SubscriberRecord } from '../domain/subscriber.ts';
import { mintToken } from '../domain/tokens.ts';
import {
  type CallContext,
  type Dependencies,
  MissingDependency,
  required,
} from './dependencies.ts';

/** Unsubscribe links kept alive per subscriber; older ones die first when more are minted. */
const MAX_UNSUBSCRIBE_TOKENS = 20;

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
 * Writes a subscriber change decided by the rules, with the tokens its mails need, then sends
 * those mails. The write is conditional on the version read (or on the address being new), so
 * of racing callers exactly one commits and the others recompute. A mail that fails leaves the
 * subscriber stored and is handed back to the process (cooldown released, or marked pending)
 * so that a retry sends it; the caller answers 503.
 */
export async function commitChange(
  deps: Dependencies,
  settings: Settings,
  context: CallContext,
  current: SubscriberRecord | undefined,
  draft: SubscriberRecord,
  mails: readonly MailKind[],
): Promise<CommitResult> {
  // Before anything is written: a change whose mails cannot be sent is a wiring bug (a 500
  // naming the mailer), not a stored subscriber with an outage answer.
  const mailer = mails.length > 0 ? required(deps.mailer, 'mailer') : undefined;
  const now = deps.now();
  const nowSeconds = Math.floor(now.getTime() / 1000);
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

  const tokens: Record<string, number> = {};
  const deletes: string[] = [];
  for (const [hash, expires] of Object.entries(draft.tokens)) {
    if (expires > nowSeconds) tokens[hash] = expires;
    else deletes.push(hash);
  }
  const puts: TokenRecord[] = [];
  let confirmToken = draft.confirm_token;
  let confirmRaw: string | undefined;
  let unsubscribeRaw: string | undefined;

  if (mails.includes('activation')) {
    // Only the newest activation link confirms: a resend retires the previous one.
    if (confirmToken && tokens[confirmToken] !== undefined) {
      delete tokens[confirmToken];
      deletes.push(confirmToken);
    }
    const token = mintToken();
    const expires = nowSeconds + settings.activation_lifetime_hours * 3600;
    tokens[token.hash] = expires;
    puts.push({ hash: token.hash, email: draft.email, purpose: 'confirm', expires_at: expires });
    confirmToken = token.hash;
    confirmRaw = token.raw;
  }
  if (mails.includes('welcome')) {
    const token = mintToken();
    const expires = nowSeconds + settings.unsubscribe_link_lifetime_days * 86_400;
    const live = Object.entries(tokens)
      .filter(([hash]) => hash !== confirmToken)
      .sort((a, b) => a[1] - b[1]);
    for (const [hash] of live.slice(0, Math.max(0, live.length - MAX_UNSUBSCRIBE_TOKENS + 1))) {
      delete tokens[hash];
      deletes.push(hash);
    }
    tokens[token.hash] = expires;
    puts.push({
      hash: token.hash,
      email: draft.email,
      purpose: 'unsubscribe',
      expires_at: expires,
    });
    unsubscribeRaw = token.raw;
  }

  // The activation token is kept only while it lives; pruning may have retired it.
  const { confirm_token: _previous, ...rest } = draft;
  const liveConfirm = confirmToken !== undefined && tokens[confirmToken] !== undefined;
  let record: SubscriberRecord = {
    ...rest,
    ...(liveConfirm ? { confirm_token: confirmToken } : {}),
    tokens,
    version: (current?.version ?? 0) + 1,
  };

  const changes = { put: puts, delete: deletes };
  if (!current) record = { ...record, id: await deps.store.nextId('subscriber') };
  if (!(await writeOnce(deps, record, current, changes))) return { kind: 'conflict' };

  const subject = {
    email: record.email,
    name: record.name,
    surname: record.surname,
    listNames: settings.lists
      .filter((list) => record.lists.includes(list.id))
      .map((list) => list.name),
  };
  for (const [index, kind] of mails.entries()) {
    const mail: DueMail =
      kind === 'activation'
        ? {
            kind,
            to: record.email,
            subscriber: subject,
            confirmUrl: pageLink(base ?? '', 'confirm', confirmRaw ?? ''),
          }
        : kind === 'welcome'
          ? {
              kind,
              to: record.email,
              subscriber: subject,
              unsubscribeUrl: pageLink(base ?? '', 'unsubscribe', unsubscribeRaw ?? ''),
            }
          : { kind, to: settings.admin_address, subscriber: subject };
    try {
      await required(mailer, 'mailer').send(mail, settings);
    } catch (error) {
      deps.metrics.count('MailFailures');
      deps.log.error('mail_failed', {
        kind,
        subscriber_id: record.id,
        cause: describeError(error),
      });
      await handBack(deps, record, mails.slice(index));
      return { kind: 'failed', error: unavailable() };
    }
  }
  return { kind: 'written', record };
}

/**
 * Writes the change; true when it is stored. A write whose answer was lost (the SDK gave up,
 * DependencyError) or whose retry found its own earlier attempt (condition failed) may still
 * have landed: when the change mints a token, the stored record names that fresh hash, so a
 * read-back tells our write from anyone else's, and the caller goes on to send its mails.
 */
async function writeOnce(
  deps: Dependencies,
  record: SubscriberRecord,
  current: SubscriberRecord | undefined,
  changes: { put: TokenRecord[]; delete: string[] },
): Promise<boolean> {
  let written: boolean;
  try {
    written = current
      ? await deps.store.replaceSubscriber(record, current.version, changes)
      : await deps.store.createSubscriber(record, changes);
  } catch (error) {
    if (!(error instanceof DependencyError) || changes.put.length === 0) throw error;
    if (await landed(deps, record, changes)) return true;
    throw error;
  }
  return written || (changes.put.length > 0 && (await landed(deps, record, changes)));
}

/** Whether the stored subscriber is `record` as this call wrote it (its fresh token listed). */
async function landed(
  deps: Dependencies,
  record: SubscriberRecord,
  changes: { put: TokenRecord[] },
): Promise<boolean> {
  const stored = await deps.store.getSubscriber(record.email);
  return (
    stored !== undefined &&
    stored.version === record.version &&
    changes.put.every((token) => stored.tokens[token.hash] !== undefined)
  );
}

/**
 * Gives unsent mails back to the process after a failed send: the activation cooldown is
 * released (so the retry sends at once) and confirmation mails are marked pending. Conditional
 * on the version just written; if someone wrote since, their decision already stands.
 */
async function handBack(
  deps: Dependencies,
  written: SubscriberRecord,
  unsent: readonly MailKind[],
): Promise<void> {
  const pending = unsent.filter((kind) => kind !== 'activation');
  let next: SubscriberRecord = {
    ...written,
    version: written.version + 1,
    pending_mails: [...new Set([...written.pending_mails, ...pending])],
  };
  if (unsent.includes('activation')) {
    const { activation_sent_at: _released, ...rest } = next;
    next = rest;
  }
  try {
    const ok = await deps.store.replaceSubscriber(next, written.version, { put: [], delete: [] });
    if (!ok) deps.log.warn('mail_hand_back_superseded', { subscriber_id: written.id });
  } catch (error) {
    // The subscriber is stored either way; at worst the retry waits for the cooldown.
    deps.log.error('mail_hand_back_failed', {
      subscriber_id: written.id,
      cause: describeError(error),
    });
  }
}
