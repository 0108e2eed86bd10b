import type { MailKind } from '../adapters/mail/mail-port.ts';
import type { SubscribeParameters, SubscriberFields } from './parameters/parse-parameters.ts';
import type { Settings } from './settings-schema.ts';
import type { SubscriberRecord, SubscriberStatus } from './subscriber.ts';

/** What the subscribe rules decided: the record to write (none: change nothing) and the mails. */
export interface SubscribeDecision {
  /** The subscriber after the call, unversioned; undefined when nothing is written. */
  readonly next?: SubscriberRecord;
  /** Mails due, in sending order. */
  readonly mails: readonly MailKind[];
}

/** The facts the rules look at besides the stored subscriber and the call. */
export interface SubscribeSituation {
  readonly trusted: boolean;
  readonly settings: Settings;
  readonly now: Date;
}

const union = (a: readonly number[], b: readonly number[] = []): number[] =>
  [...new Set([...a, ...b])].sort((x, y) => x - y);

/** Applies the provided fields; lists are only ever added, never removed. */
export function mergeFields(record: SubscriberRecord, fields: SubscriberFields): SubscriberRecord {
  return {
    ...record,
    ...(fields.name === undefined ? {} : { name: fields.name }),
    ...(fields.surname === undefined ? {} : { surname: fields.surname }),
    ...(fields.gender === undefined ? {} : { gender: fields.gender }),
    lists: union(record.lists, fields.lists),
    profile: { ...record.profile, ...fields.profile },
  };
}

/** Whether two records look the same to a caller (the fields a subscriber object shows). */
function sameVisible(a: SubscriberRecord, b: SubscriberRecord): boolean {
  const profile = (r: SubscriberRecord) => JSON.stringify(Object.entries(r.profile).sort());
  return (
    a.name === b.name &&
    a.surname === b.surname &&
    a.gender === b.gender &&
    a.status === b.status &&
    a.lists.join() === b.lists.join() &&
    profile(a) === profile(b)
  );
}

/** Whether the state the process keeps differs (the cooldown's claim). */
function sameProcessState(a: SubscriberRecord, b: SubscriberRecord): boolean {
  return a.activation_sent_at === b.activation_sent_at;
}

/**
 * A brand-new subscriber record; ids and versions are filled in when it is written. The
 * pre-assigned lists are added unless `preassigned` is false (an import carries its lists
 * over exactly, so an export of it reads back the same).
 */
export function newSubscriberRecord(
  email: string,
  fields: SubscriberFields,
  status: SubscriberStatus,
  settings: Settings,
  now: Date,
  { preassigned: addPreassigned = true }: { preassigned?: boolean } = {},
): SubscriberRecord {
  const preassigned = addPreassigned
    ? settings.lists.filter((list) => list.preassigned).map((list) => list.id)
    : [];
  const stamp = now.toISOString();
  return {
    id: 0,
    email,
    name: fields.name ?? '',
    surname: fields.surname ?? '',
    gender: fields.gender ?? '',
    lists: union(preassigned, fields.lists),
    profile: { ...fields.profile },
    status,
    created: stamp,
    updated: stamp,
    version: 0,
    tokens: {},
  };
}

/** Mails that go out when a subscriber becomes confirmed. */
function confirmationMails(settings: Settings, mailSubscriber: boolean): MailKind[] {
  return [
    ...(mailSubscriber ? (['welcome'] as const) : []),
    ...(settings.admin_address ? (['admin'] as const) : []),
  ];
}

/**
 * The subscribe state machine of decisions part 4, as a pure function of the stored
 * subscriber (or none), the call, and who calls. Writing and sending happen elsewhere.
 */
export function decideSubscribe(
  current: SubscriberRecord | undefined,
  call: SubscribeParameters,
  { trusted, settings, now }: SubscribeSituation,
): SubscribeDecision {
  const double = settings.opt_in === 'double';
  const sendToSubscriber = call.send_emails;
  const nowMs = now.getTime();
  const stamp = now.toISOString();

  if (!current) {
    const status: SubscriberStatus = double ? 'S' : 'C';
    const record = newSubscriberRecord(call.email, call, status, settings, now);
    if (double) {
      return sendToSubscriber
        ? { next: { ...record, activation_sent_at: nowMs }, mails: ['activation'] }
        : { next: record, mails: [] };
    }
    return { next: record, mails: confirmationMails(settings, sendToSubscriber) };
  }

  const base: SubscriberRecord = current;

  /** Writes only what changed; `updated` moves only when something a caller sees changed. */
  const write = (record: SubscriberRecord, mails: readonly MailKind[]): SubscribeDecision => {
    const visible = sameVisible(record, current);
    if (visible && sameProcessState(record, current) && mails.length === 0) return { mails: [] };
    return { next: { ...record, updated: visible ? current.updated : stamp }, mails };
  };

  /** Sends the activation mail again unless one went out within the cooldown. */
  const activation = (record: SubscriberRecord): SubscribeDecision => {
    const cooledDown =
      current.activation_sent_at === undefined ||
      nowMs - current.activation_sent_at >= settings.resend_cooldown_minutes * 60_000;
    return sendToSubscriber && cooledDown
      ? write({ ...record, activation_sent_at: nowMs }, ['activation'])
      : write(record, []);
  };

  switch (current.status) {
    case 'S':
      return activation(mergeFields(base, call));
    case 'C':
      return write(trusted ? mergeFields(base, call) : base, []);
    case 'U': {
      const merged = mergeFields(base, call);
      if (trusted && !double) {
        return write({ ...merged, status: 'C' }, confirmationMails(settings, sendToSubscriber));
      }
      // Only the address owner may put an address back on the list: it must confirm again.
      return activation({ ...merged, status: 'S' });
    }
    case 'B':
    case 'P':
      return { mails: [] };
  }
}
