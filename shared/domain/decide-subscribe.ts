import type { MailKind } from '../adapters/mail/mail-port.ts';
import type { Consent } from './consent.ts';
import type { OnConfirm } from './outbox.ts';
import type { SubscribeParameters, SubscriberFields } from './parameters/parse-parameters.ts';
import type { Settings } from './settings-schema.ts';
import type { SubscriberRecord, SubscriberStatus } from './subscriber.ts';

/** What the subscribe rules decided: the record to write (none: change nothing) and the mails. */
export interface SubscribeDecision {
  /** The subscriber after the call, unversioned; undefined when nothing is written. */
  readonly next?: SubscriberRecord;
  /** Mails due, in sending order. */
  readonly mails: readonly MailKind[];
  /** With an `activation` mail: what confirming it applies. */
  readonly onConfirm?: OnConfirm;
}

/** The facts the rules look at besides the stored subscriber and the call. */
export interface SubscribeSituation {
  readonly trusted: boolean;
  readonly settings: Settings;
  readonly now: Date;
  /** The call's consent evidence (channel, time, client); kept when the call subscribes someone. */
  readonly consent?: Consent;
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
    // A v2 subscription's place and language: what is given replaces, the rest stays.
    ...(fields.place === undefined ? {} : { place: { ...record.place, ...fields.place } }),
    ...(fields.language === undefined ? {} : { language: fields.language }),
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
    profile(a) === profile(b) &&
    JSON.stringify(a.place ?? {}) === JSON.stringify(b.place ?? {}) &&
    a.language === b.language
  );
}

/** Whether the state the process keeps differs (the cooldown's claim). */
function sameProcessState(a: SubscriberRecord, b: SubscriberRecord): boolean {
  return a.activation_sent_at === b.activation_sent_at && a.consent === b.consent;
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
    ...(fields.place === undefined ? {} : { place: { ...fields.place } }),
    ...(fields.language === undefined ? {} : { language: fields.language }),
    status,
    created: stamp,
    updated: stamp,
    version: 0,
    tokens: {},
    ...(status === 'C' ? { confirmed_at: stamp } : {}),
  };
}

/** Mails that go out when a subscriber becomes confirmed. */
export function confirmationMails(settings: Settings, mailSubscriber: boolean): MailKind[] {
  return [
    ...(mailSubscriber ? (['welcome'] as const) : []),
    ...(settings.admin_address ? (['admin'] as const) : []),
  ];
}

/**
 * Whether a never-confirmed `S` is past its expiry. DynamoDB's TTL deletes it up to days
 * late, so the rules treat it as gone at once.
 */
export function isExpired(record: SubscriberRecord, now: Date): boolean {
  return (
    record.status === 'S' &&
    record.expires_at !== undefined &&
    record.expires_at * 1000 <= now.getTime()
  );
}

/**
 * Whether a record may expire once asked: an `S` that was never confirmed. One that was (it has
 * `confirmed_at` or a confirmation in its consent) is a person who once agreed; a pending
 * expiry (`expires_at`) means it was asked before and never answered.
 */
export function neverConfirmed(record: SubscriberRecord): boolean {
  return (
    record.status === 'S' &&
    (record.expires_at !== undefined ||
      (record.confirmed_at === undefined && record.consent?.confirmed === undefined))
  );
}

/**
 * An `S` whom nobody has asked to confirm: stored by a trusted call that sent no activation
 * (`send_emails=false`, `add_subscriber`, an import). It never expires; an operator lists
 * these with `npx newsletter subscribers unasked` and runs consent for them.
 */
export function isUnasked(record: SubscriberRecord): boolean {
  return (
    record.status === 'S' &&
    record.activation_sent_at === undefined &&
    (record.activation_log?.length ?? 0) === 0
  );
}

/** The fields a call provided, as they travel with an activation. */
function providedFields(call: SubscribeParameters): SubscriberFields {
  return {
    ...(call.name === undefined ? {} : { name: call.name }),
    ...(call.surname === undefined ? {} : { surname: call.surname }),
    ...(call.gender === undefined ? {} : { gender: call.gender }),
    ...(call.lists === undefined ? {} : { lists: call.lists }),
    ...(call.profile === undefined ? {} : { profile: call.profile }),
    ...(call.place === undefined ? {} : { place: call.place }),
    ...(call.language === undefined ? {} : { language: call.language }),
  };
}

/**
 * The subscribe state machine of decisions part 4 and docs/behaviour.md, as a pure function
 * of the stored subscriber (or none), the call, and who calls. Writing and sending happen
 * elsewhere. A keyless call never changes what a caller sees of an existing subscriber: its
 * fields, its consent and its welcome choice travel with the activation it queues.
 */
export function decideSubscribe(
  stored: SubscriberRecord | undefined,
  call: SubscribeParameters,
  { trusted, settings, now, consent }: SubscribeSituation,
): SubscribeDecision {
  const double = settings.opt_in === 'double';
  const nowMs = now.getTime();
  const stamp = now.toISOString();
  const expiresAt = Math.floor(nowMs / 1000) + settings.unconfirmed_expiry_days * 86_400;

  // The cooldown and the rolling cap hold for every activation mail of the address, whoever
  // asks; the log survives an expired record, so expiry does not reset the cap.
  const windowMs = settings.activation_cap.window_hours * 3_600_000;
  const log = (stored?.activation_log ?? []).filter((at) => nowMs - at < windowMs);
  const cooledDown =
    stored?.activation_sent_at === undefined ||
    nowMs - stored.activation_sent_at >= settings.resend_cooldown_minutes * 60_000;
  const mayActivate = cooledDown && log.length < settings.activation_cap.max_mails;
  // In double opt-in the activation is the person's only way to consent: a keyless
  // send_emails=false cannot suppress it, only the welcome.
  const activationWanted = trusted ? call.send_emails : true;
  /**
   * Claims an activation mail. Expiry counts from the latest activation and only for an `S`
   * that was asked and never confirmed: a record a trusted caller stored without asking has
   * nobody who could have answered, so it must not disappear ([subscribe.expiry-asked-only]).
   * `mayExpire` is false for a `U` coming back, which once stood on the list in its own right.
   */
  const activated = (record: SubscriberRecord, mayExpire: boolean): SubscriberRecord => ({
    ...record,
    activation_sent_at: nowMs,
    activation_log: [...log, nowMs],
    ...(mayExpire && neverConfirmed(record) ? { expires_at: expiresAt } : {}),
  });

  const current = stored && !isExpired(stored, now) ? stored : undefined;
  if (!current) {
    const fresh = newSubscriberRecord(call.email, call, double ? 'S' : 'C', settings, now);
    const record: SubscriberRecord = {
      ...fresh,
      ...(consent ? { consent } : {}),
      ...(log.length > 0 ? { activation_log: log } : {}),
    };
    if (!double) return { next: record, mails: confirmationMails(settings, call.send_emails) };
    if (activationWanted && mayActivate) {
      return {
        next: activated(record, true),
        mails: ['activation'],
        onConfirm: { welcome: call.send_emails },
      };
    }
    // A wanted activation held by the cap still expires: the address was asked by the recent
    // mails the cap counts. A trusted send_emails=false asked nobody, so nothing expires: the
    // caller runs consent itself.
    return { next: activationWanted ? { ...record, expires_at: expiresAt } : record, mails: [] };
  }

  /** Writes only what changed; `updated` moves only when something a caller sees changed. */
  const write = (
    record: SubscriberRecord,
    mails: readonly MailKind[],
    onConfirm?: OnConfirm,
  ): SubscribeDecision => {
    const visible = sameVisible(record, current);
    if (visible && sameProcessState(record, current) && mails.length === 0) return { mails: [] };
    return {
      next: { ...record, updated: visible ? current.updated : stamp },
      mails,
      ...(onConfirm ? { onConfirm } : {}),
    };
  };

  /** Queues an activation unless the cooldown, the cap or a trusted send_emails=false holds it. */
  const activation = (record: SubscriberRecord, onConfirm: OnConfirm): SubscribeDecision =>
    activationWanted && mayActivate
      ? write(activated(record, current.status === 'S'), ['activation'], onConfirm)
      : write(record, []);

  /** A keyless call's activation: the record stays as it is; the call travels with the link. */
  const keylessActivation = (): SubscribeDecision =>
    activation(current, {
      fields: providedFields(call),
      welcome: call.send_emails,
      ...(consent ? { consent } : {}),
    });

  switch (current.status) {
    case 'S':
      return trusted
        ? activation(mergeFields(current, call), { welcome: call.send_emails })
        : keylessActivation();
    case 'C':
      return write(trusted ? mergeFields(current, call) : current, []);
    case 'U': {
      // Only the address owner may put an address back on the list: a keyless call leaves
      // the opt-out standing until the link is confirmed.
      if (!trusted) return keylessActivation();
      const merged: SubscriberRecord = {
        ...mergeFields(current, call),
        ...(consent ? { consent } : {}),
      };
      if (!double) {
        return write({ ...merged, status: 'C' }, confirmationMails(settings, call.send_emails));
      }
      return activation({ ...merged, status: 'S' }, { welcome: call.send_emails });
    }
    case 'B':
    case 'P':
      return { mails: [] };
  }
}
