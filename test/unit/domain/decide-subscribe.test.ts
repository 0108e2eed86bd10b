/**
 * The subscribe decision, table-driven: every stored state × keyed/keyless × opt-in mode ×
 * `send_emails` (× admin address on/off × a changed or a repeated call). The expected outcome
 * is written from the documents (../shared/spec/decisions.md part 4 and docs/behaviour.md),
 * not from the implementation's branches.
 */
import { describe, expect, it } from 'vitest';
import type { MailKind } from '../../../shared/adapters/mail/mail-port.ts';
import {
  decideSubscribe,
  isExpired,
  isUnasked,
  neverConfirmed,
  newSubscriberRecord,
} from '../../../shared/domain/decide-subscribe.ts';
import { isNewsletterError } from '../../../shared/domain/errors.ts';
import {
  parseSubscribeParameters,
  type SubscribeParameters,
} from '../../../shared/domain/parameters/parse-parameters.ts';
import type { Settings } from '../../../shared/domain/settings-schema.ts';
import type {
  Subscriber,
  SubscriberRecord,
  SubscriberStatus,
} from '../../../shared/domain/subscriber.ts';
import { testSettings } from '../../support/fixtures.ts';

const ADDRESS = 'ada@example.com';
const NOW = new Date('2026-11-22T10:00:00.000Z');
const MINUTE = 60_000;
/** The pre-assigned list of `testSettings()`. */
const PREASSIGNED = 3;

/** The fields a caller sees, lists sorted, as the documents speak of them. */
interface Visible {
  readonly name: string;
  readonly surname: string;
  readonly gender: Subscriber['gender'];
  readonly lists: readonly number[];
  readonly profile: Readonly<Record<string, string>>;
}

/** What the stored subscriber shows; it lacks the pre-assigned list (assigned before it was). */
const STORED: Visible = {
  name: 'Ada',
  surname: 'Lovelace',
  gender: 'f',
  lists: [1],
  profile: { company: 'Analytical' },
};

/** A call that provides a new value for every field; its profile adds a field. */
const CHANGED: Visible = {
  name: 'Augusta',
  surname: 'King',
  gender: 'n',
  lists: [4],
  profile: { '1': 'London' },
};

type CallKind = 'changed' | 'repeated';
const CALL_FIELDS: Record<CallKind, Visible> = { changed: CHANGED, repeated: STORED };

const union = (a: readonly number[], b: readonly number[]): number[] =>
  [...new Set([...a, ...b])].sort((x, y) => x - y);

const visible = (record: SubscriberRecord): Visible => ({
  name: record.name,
  surname: record.surname,
  gender: record.gender,
  lists: [...record.lists].sort((x, y) => x - y),
  profile: record.profile,
});

/** decisions part 4: a trusted call "updates the provided fields and adds (never removes) lists". */
const updated = (base: Visible, call: Visible): Visible => ({
  name: call.name,
  surname: call.surname,
  gender: call.gender,
  lists: union(base.lists, call.lists),
  profile: { ...base.profile, ...call.profile },
});

const sameVisible = (a: Visible, b: Visible): boolean =>
  JSON.stringify(a) === JSON.stringify({ ...b, lists: [...b.lists].sort((x, y) => x - y) });

/** A state of the address before the call. */
interface State {
  readonly label: string;
  readonly status: 'none' | SubscriberStatus;
  /** Minutes since the last activation mail; absent: none was ever sent. */
  readonly activationMinutesAgo?: number;
}

const STATES: readonly State[] = [
  { label: 'new address', status: 'none' },
  { label: 'S, never sent an activation', status: 'S' },
  {
    label: 'S, last activation 30 min ago (outside the cooldown)',
    status: 'S',
    activationMinutesAgo: 30,
  },
  {
    label: 'S, last activation 4 min ago (inside the cooldown)',
    status: 'S',
    activationMinutesAgo: 4,
  },
  { label: 'C', status: 'C', activationMinutesAgo: 60 * 24 * 3 },
  { label: 'U, last activation days ago', status: 'U', activationMinutesAgo: 60 * 24 * 3 },
  { label: 'U, last activation 4 min ago', status: 'U', activationMinutesAgo: 4 },
  { label: 'B', status: 'B', activationMinutesAgo: 60 * 24 * 3 },
  { label: 'P', status: 'P', activationMinutesAgo: 60 * 24 * 3 },
];

function storedRecord(state: State): SubscriberRecord | undefined {
  if (state.status === 'none') return undefined;
  return {
    id: 7,
    email: ADDRESS,
    ...STORED,
    lists: [...STORED.lists],
    profile: { ...STORED.profile },
    status: state.status,
    created: '2026-11-01T08:00:00.000Z',
    updated: '2026-11-01T08:00:00.000Z',
    version: 4,
    tokens: {},
    ...(state.activationMinutesAgo === undefined
      ? {}
      : { activation_sent_at: NOW.getTime() - state.activationMinutesAgo * MINUTE }),
  };
}

type OptIn = Settings['opt_in'];
/** The raw request parameter; `undefined` is "not sent". */
type SendEmails = boolean | undefined;

interface Row {
  readonly state: State;
  readonly trusted: boolean;
  readonly optIn: OptIn;
  readonly sendEmails: SendEmails;
  readonly admin: boolean;
  readonly call: CallKind;
}

/** What the documents require of one row. */
interface Expected {
  /** Whether anything is written; when not, nothing is sent either. */
  readonly write: boolean;
  readonly status?: SubscriberStatus;
  /** Mails due (order not specified by the documents). */
  readonly mails: readonly MailKind[];
  /** The fields a caller sees afterwards; absent: not specified by the documents. */
  readonly fields?: Visible;
  /** The lists afterwards, where only those are specified. */
  readonly lists?: readonly number[];
}

/** The subscribe rules of decisions part 4 and docs/behaviour.md, one row at a time. */
function expected({ state, trusted, optIn, sendEmails, admin, call }: Row): Expected {
  const given = CALL_FIELDS[call];
  // "send_emails=false ... sends no e-mail to the subscriber, for trusted calls. A keyless call
  // cannot suppress the activation mail ...; the flag then only suppresses the welcome mail."
  const activation: MailKind[] = trusted && sendEmails === false ? [] : ['activation'];
  const welcome: MailKind[] = sendEmails === false ? [] : ['welcome'];
  // "An administrator notification is sent when a subscriber becomes confirmed and an admin
  // address is configured" (not a mail to the subscriber: send_emails does not touch it).
  const confirmation: MailKind[] = [...welcome, ...(admin ? (['admin'] as const) : [])];
  // "at most once per cooldown (settings, default 10 minutes)", for every activation mail.
  const inCooldown = state.activationMinutesAgo !== undefined && state.activationMinutesAgo < 10;
  const resend = inCooldown ? [] : activation;

  switch (state.status) {
    case 'none':
      // "New address: stored with status S and an activation e-mail is sent (double), or with
      // status C and a welcome e-mail is sent (single)." Pre-assigned lists are added.
      return {
        write: true,
        status: optIn === 'double' ? 'S' : 'C',
        mails: optIn === 'double' ? activation : confirmation,
        fields: { ...given, lists: union([PREASSIGNED], given.lists) },
      };
    case 'S': {
      // "A trusted call updates the provided fields at once; a keyless call changes nothing
      // stored until the person confirms".
      const fields = trusted ? updated(STORED, given) : STORED;
      return {
        write: resend.length > 0 || !sameVisible(fields, STORED),
        status: 'S',
        mails: resend,
        fields,
      };
    }
    case 'C': {
      // "C: a call without key changes nothing and sends nothing. A trusted call updates the
      // provided fields and adds (never removes) lists."
      const fields = trusted ? updated(STORED, given) : STORED;
      return { write: !sameVisible(fields, STORED), status: 'C', mails: [], fields };
    }
    case 'U': {
      // Issue 15: a keyless call leaves the opt-out standing until the link is confirmed; it
      // queues the activation (within the cooldown and the cap) and changes nothing a caller
      // sees. A trusted call: "becomes S with a fresh activation e-mail; a trusted call in
      // single opt-in mode makes it C", keeping its lists and adding the call's.
      if (!trusted) return { write: resend.length > 0, status: 'U', mails: resend, fields: STORED };
      const lists = union(STORED.lists, given.lists);
      return optIn === 'single'
        ? { write: true, status: 'C', mails: confirmation, lists }
        : { write: true, status: 'S', mails: resend, lists };
    }
    case 'B':
    case 'P':
      // "B, P: nothing is changed or sent."
      return { write: false, mails: [] };
  }
}

/** The ids of the behaviour.md rules a row exercises, as they appear in its title. */
function rulesOf(row: Row, outcome: Expected): string[] {
  const rules: string[] = [];
  if (row.state.status === 'none') rules.push('[subscribe.preassigned-new]');
  if (row.state.status === 'U' && row.trusted) rules.push('[subscribe.u-keeps-lists]');
  if (!row.trusted && row.state.status !== 'none') rules.push('[subscribe.keyless-no-rewrite]');
  if (!row.trusted && row.sendEmails === false) rules.push('[subscribe.keyless-activation]');
  if (row.call === 'repeated' && row.state.status !== 'none' && !outcome.write) {
    rules.push('[subscribe.no-write-unchanged]');
  }
  return rules;
}

const sendLabel = (sendEmails: SendEmails): string =>
  `send_emails ${sendEmails === undefined ? 'absent' : String(sendEmails)}`;

function title(row: Row, outcome: Expected): string {
  const situation = [
    row.state.label,
    row.trusted ? 'keyed' : 'keyless',
    `${row.optIn} opt-in`,
    sendLabel(row.sendEmails),
    row.admin ? 'admin address set' : 'no admin address',
    `${row.call} call`,
  ].join(', ');
  const result = outcome.write
    ? `${outcome.status}, mails [${outcome.mails.join(', ')}]`
    : 'nothing written or sent';
  return [...rulesOf(row, outcome), `${situation} → ${result}`].join(' ');
}

function settingsFor(optIn: OptIn, admin: boolean): Settings {
  return testSettings({ opt_in: optIn, ...(admin ? {} : { admin_address: '' }) });
}

/** The call as it reaches the decision: through the parameter parser, as the operation does. */
function parsedCall(
  call: CallKind,
  sendEmails: SendEmails,
  settings: Settings,
): SubscribeParameters {
  const fields = CALL_FIELDS[call];
  const parsed = parseSubscribeParameters(
    {
      email: ADDRESS,
      name: fields.name,
      surname: fields.surname,
      gender: fields.gender,
      lists: [...fields.lists],
      profile: { ...fields.profile },
      ...(sendEmails === undefined ? {} : { send_emails: sendEmails }),
    },
    settings,
  );
  if (isNewsletterError(parsed)) throw new Error(`test call rejected: ${parsed.message}`);
  return parsed;
}

const sorted = (mails: readonly MailKind[]): MailKind[] => [...mails].sort();

const given = (call: CallKind): Visible => CALL_FIELDS[call];

/** The rows of one state as `[title, row, expected]`; `%s` prints the title whole. */
function rowsFor(state: State): [string, Row, Expected][] {
  const rows: Row[] = [];
  for (const trusted of [true, false]) {
    for (const optIn of ['double', 'single'] as const) {
      for (const sendEmails of [true, false, undefined]) {
        for (const admin of [true, false]) {
          for (const call of ['changed', 'repeated'] as const) {
            rows.push({ state, trusted, optIn, sendEmails, admin, call });
          }
        }
      }
    }
  }
  return rows.map((row) => {
    const outcome = expected(row);
    return [title(row, outcome), row, outcome];
  });
}

describe('send_emails reaches the decision', () => {
  it.each([
    [true, true],
    [false, false],
    [undefined, true],
  ])('%s in the request is send_emails %s in the call (default true)', (sent, seen) => {
    expect(parsedCall('changed', sent, testSettings()).send_emails).toBe(seen);
  });
});

describe.each(STATES.map((state) => [state.label, state] as const))('%s', (_label, state) => {
  it.each(rowsFor(state))('%s', (_title, row, outcome) => {
    const settings = settingsFor(row.optIn, row.admin);
    const call = parsedCall(row.call, row.sendEmails, settings);
    const situation = { trusted: row.trusted, settings, now: NOW };

    const decision = decideSubscribe(storedRecord(row.state), call, situation);

    expect(sorted(decision.mails)).toEqual(sorted(outcome.mails));
    if (!outcome.write) {
      expect(decision.next).toBeUndefined();
      return;
    }
    const next = decision.next;
    expect(next).toBeDefined();
    if (!next) return;
    expect(next.email).toBe(ADDRESS);
    expect(next.status).toBe(outcome.status);
    if (outcome.fields) expect(visible(next)).toEqual(outcome.fields);
    if (outcome.lists) expect(visible(next).lists).toEqual(outcome.lists);
    if (outcome.mails.includes('activation')) {
      // What confirming applies travels with the activation: a keyless call's fields on an
      // existing address, and the welcome unless send_emails=false.
      expect(decision.onConfirm?.welcome).toBe(row.sendEmails !== false);
      if (!row.trusted && row.state.status !== 'none') {
        const carried = decision.onConfirm?.fields;
        expect(carried).toEqual({ ...given(row.call), lists: [...given(row.call).lists] });
      }
      // "at most once per cooldown": the same call a minute later sends no activation.
      const again = decideSubscribe(next, call, {
        ...situation,
        now: new Date(NOW.getTime() + MINUTE),
      });
      expect(again.mails).not.toContain('activation');
    }
  });
});

describe('activation resends over a day', () => {
  it('[subscribe.activation-cap] are capped per rolling day (decisions part 4: "at most a capped number of times per rolling day (default 3)")', () => {
    const settings = testSettings();
    const call = parsedCall('repeated', undefined, settings);
    let current: SubscriberRecord | undefined;
    const sentAt: number[] = [];
    // A keyless caller asks again every 11 minutes, each time past the 10-minute cooldown.
    for (let i = 0; i < 8; i++) {
      const now = new Date(NOW.getTime() + i * 11 * MINUTE);
      const decision = decideSubscribe(current, call, { trusted: false, settings, now });
      if (decision.mails.includes('activation')) sentAt.push(now.getTime());
      current = decision.next ?? current;
    }
    // Three mails in all (the documented default), the first included, then none that day.
    expect(sentAt).toEqual([0, 1, 2].map((i) => NOW.getTime() + i * 11 * MINUTE));

    // A day after the last one, the activation can be sent again.
    const later = new Date(Math.max(...sentAt) + 25 * 60 * MINUTE);
    const decision = decideSubscribe(current, call, { trusted: false, settings, now: later });
    expect(decision.mails).toEqual(['activation']);
  });
});

describe('cooldown, expiry and consent', () => {
  const consent = {
    channel: 'public_form' as const,
    subscribed: { at: NOW.toISOString(), ip: '203.0.113.9', user_agent: 'Form/1.0' },
  };

  it('[subscribe.cooldown-minimum] refuses a resend cooldown under five minutes', () => {
    expect(() => testSettings({ resend_cooldown_minutes: 4 })).toThrow(/resend_cooldown_minutes/);
    expect(testSettings({ resend_cooldown_minutes: 5 }).resend_cooldown_minutes).toBe(5);
  });

  it('[subscribe.unconfirmed-expiry] gives a new S an expiry 30 days on, renewed by each activation, and treats an expired S as a new address', () => {
    const settings = testSettings();
    const call = parsedCall('changed', undefined, settings);
    const first = decideSubscribe(undefined, call, { trusted: false, settings, now: NOW }).next;
    const day = 86_400;
    expect(first?.expires_at).toBe(NOW.getTime() / 1000 + 30 * day);

    const later = new Date(NOW.getTime() + 2 * day * 1000);
    const resent = decideSubscribe(first, call, { trusted: false, settings, now: later });
    expect(resent.mails).toEqual(['activation']);
    expect(resent.next?.expires_at).toBe(later.getTime() / 1000 + 30 * day);

    const expired = { ...(resent.next as SubscriberRecord), name: 'Old', version: 9 };
    const afterExpiry = new Date(later.getTime() + 31 * day * 1000);
    const again = decideSubscribe(expired, parsedCall('repeated', undefined, settings), {
      trusted: false,
      settings,
      now: afterExpiry,
    });
    // Written afresh from the call, as for an address never seen.
    expect(again.mails).toEqual(['activation']);
    expect(again.next?.name).toBe(STORED.name);
    expect(again.next?.created).toBe(afterExpiry.toISOString());
  });

  it('[subscribe.unconfirmed-expiry] never sets an expiry on a confirmed, unsubscribed or re-subscribing address', () => {
    const settings = testSettings();
    const call = parsedCall('changed', undefined, settings);
    for (const status of ['C', 'U'] as const) {
      const stored = storedRecord({ label: status, status, activationMinutesAgo: 60 * 24 * 3 });
      for (const trusted of [true, false]) {
        const next = decideSubscribe(stored, call, { trusted, settings, now: NOW }).next;
        expect(next?.expires_at).toBeUndefined();
      }
    }
  });

  it('[subscribe.expiry-asked-only] a trusted send_emails=false stores an S without expiry; a keyless signup never confirmed still expires', () => {
    const settings = testSettings();
    const day = 86_400;
    const quiet = parsedCall('changed', false, settings);
    const stored = decideSubscribe(undefined, quiet, { trusted: true, settings, now: NOW });
    expect(stored.mails).toEqual([]);
    expect(stored.next?.status).toBe('S');
    expect(stored.next?.expires_at).toBeUndefined();
    // A repeated quiet call asks nobody either.
    const again = decideSubscribe(stored.next, quiet, { trusted: true, settings, now: NOW });
    expect(again.next?.expires_at).toBeUndefined();

    // The keyless side: the same address, never seen, expires the set days after its mail.
    const keyless = decideSubscribe(undefined, parsedCall('changed', false, settings), {
      trusted: false,
      settings,
      now: NOW,
    });
    expect(keyless.mails).toEqual(['activation']);
    expect(keyless.next?.expires_at).toBe(NOW.getTime() / 1000 + 30 * day);
  });

  it('[subscribe.expiry-asked-only] an unasked S starts to expire with its first activation, counted from the latest one', () => {
    const settings = testSettings();
    const day = 86_400;
    const unasked = decideSubscribe(undefined, parsedCall('changed', false, settings), {
      trusted: true,
      settings,
      now: NOW,
    }).next as SubscriberRecord;
    const later = new Date(NOW.getTime() + 40 * day * 1000);
    // Still there 40 days on: nothing expired it.
    const asked = decideSubscribe(unasked, parsedCall('repeated', undefined, settings), {
      trusted: false,
      settings,
      now: later,
    });
    expect(asked.mails).toEqual(['activation']);
    expect(asked.next?.expires_at).toBe(later.getTime() / 1000 + 30 * day);

    // A held activation (the cap) on a new address still expires: it was asked recently.
    const capped = { ...unasked, activation_log: [1, 2, 3].map((m) => NOW.getTime() - m * MINUTE) };
    const expiredRecord = { ...capped, expires_at: NOW.getTime() / 1000 - 1 };
    const held = decideSubscribe(expiredRecord, parsedCall('repeated', undefined, settings), {
      trusted: false,
      settings,
      now: NOW,
    });
    expect(held.mails).toEqual([]);
    expect(held.next?.expires_at).toBe(NOW.getTime() / 1000 + 30 * day);
  });

  it('[subscribe.expiry-asked-only] an S that was once confirmed never expires, also when asked again', () => {
    const settings = testSettings();
    const base = storedRecord({ label: 'S', status: 'S', activationMinutesAgo: 60 * 24 })!;
    for (const onceConfirmed of [
      { ...base, confirmed_at: '2026-10-01T00:00:00.000Z' },
      {
        ...base,
        consent: {
          channel: 'public_form' as const,
          subscribed: { at: '2026-10-01T00:00:00.000Z' },
          confirmed: { at: '2026-10-01T00:10:00.000Z' },
        },
      },
    ]) {
      const next = decideSubscribe(onceConfirmed, parsedCall('repeated', undefined, settings), {
        trusted: false,
        settings,
        now: NOW,
      });
      expect(next.mails).toEqual(['activation']);
      expect(next.next?.expires_at).toBeUndefined();
    }
  });

  it('[subscribe.consent] keeps the call’s evidence on a new subscriber, and lets a keyless call on an existing one carry it with the activation only', () => {
    const settings = testSettings();
    const call = parsedCall('changed', undefined, settings);
    const fresh = decideSubscribe(undefined, call, { trusted: false, settings, now: NOW, consent });
    expect(fresh.next?.consent).toEqual(consent);

    const stored = storedRecord({ label: 'U', status: 'U', activationMinutesAgo: 60 * 24 * 3 });
    const keyless = decideSubscribe(stored, call, { trusted: false, settings, now: NOW, consent });
    expect(keyless.next?.consent).toBeUndefined();
    expect(keyless.onConfirm?.consent).toEqual(consent);
  });
});

describe('what one field changes', () => {
  const settings = testSettings();
  const confirmed = storedRecord({ label: 'C', status: 'C', activationMinutesAgo: 60 * 24 * 3 })!;
  const keyed = (raw: Record<string, unknown>) => {
    const call = parseSubscribeParameters({ email: ADDRESS, ...raw }, settings);
    if (isNewsletterError(call)) throw new Error(call.message);
    return decideSubscribe(confirmed, call, { trusted: true, settings, now: NOW });
  };

  it.each([
    [{ name: 'Augusta' }, { name: 'Augusta' }],
    [{ surname: 'King' }, { surname: 'King' }],
    [{ gender: 'n' }, { gender: 'n' }],
    [{ lists: [4] }, { lists: [1, 4] }],
    [{ profile: { '1': 'London' } }, { profile: { company: 'Analytical', '1': 'London' } }],
    [{ profile: { company: 'Babbage' } }, { profile: { company: 'Babbage' } }],
  ])(
    '[subscribe.no-write-unchanged] a keyed call changing only %j is written, the rest kept',
    (raw, change) => {
      const decision = keyed(raw);
      expect(decision.next).toBeDefined();
      expect(visible(decision.next as SubscriberRecord)).toEqual({ ...STORED, ...change });
      expect(decision.next?.updated).toBe(NOW.toISOString());
    },
  );

  it('[subscribe.no-write-unchanged] a keyed call repeating the stored values writes nothing', () => {
    expect(keyed({ name: 'Ada', lists: [1], profile: { company: 'Analytical' } })).toEqual({
      mails: [],
    });
    expect(keyed({})).toEqual({ mails: [] });
  });

  it('[subscribe.u-keeps-lists] a keyed call adds its lists to the stored ones, without duplicates, in id order', () => {
    const stored = { ...confirmed, lists: [2, 4] };
    const call = parseSubscribeParameters({ email: ADDRESS, lists: [3, 1, 2] }, settings);
    if (isNewsletterError(call)) throw new Error(call.message);
    const next = decideSubscribe(stored, call, { trusted: true, settings, now: NOW }).next;
    expect(next?.lists).toEqual([1, 2, 3, 4]);
  });

  it('[subscribe.preassigned-new] a new subscriber gets the pre-assigned lists and the call’s, in id order', () => {
    const call = parseSubscribeParameters({ email: ADDRESS, lists: [4, 1] }, settings);
    if (isNewsletterError(call)) throw new Error(call.message);
    const next = decideSubscribe(undefined, call, { trusted: true, settings, now: NOW }).next;
    expect(next?.lists).toEqual([1, PREASSIGNED, 4]);
  });

  it('[subscribe.keyless-no-rewrite] a keyless call carries only the fields it provided with the activation', () => {
    const pending = storedRecord({ label: 'S', status: 'S', activationMinutesAgo: 60 })!;
    const call = parseSubscribeParameters({ email: ADDRESS }, settings);
    if (isNewsletterError(call)) throw new Error(call.message);
    const decision = decideSubscribe(pending, call, { trusted: false, settings, now: NOW });
    expect(decision.mails).toEqual(['activation']);
    expect(Object.keys(decision.onConfirm?.fields ?? { missing: true })).toEqual([]);
  });
});

describe('new subscriber records', () => {
  const settings = testSettings();

  it('[subscribe.preassigned-new] a record from no fields has empty names, the pre-assigned lists and no confirmation unless C', () => {
    const pending = newSubscriberRecord(ADDRESS, {}, 'S', settings, NOW);
    expect(pending).toMatchObject({
      email: ADDRESS,
      name: '',
      surname: '',
      gender: '',
      lists: [PREASSIGNED],
      profile: {},
      status: 'S',
      created: NOW.toISOString(),
      updated: NOW.toISOString(),
    });
    expect(pending.confirmed_at).toBeUndefined();
    const joined = newSubscriberRecord(ADDRESS, {}, 'C', settings, NOW);
    expect(joined.confirmed_at).toBe(NOW.toISOString());
  });

  it('[subscribe.preassigned-new] an import carries its lists over exactly, without the pre-assigned ones', () => {
    const imported = newSubscriberRecord(ADDRESS, { lists: [4, 1] }, 'C', settings, NOW, {
      preassigned: false,
    });
    expect(imported.lists).toEqual([1, 4]);
    expect(
      newSubscriberRecord(ADDRESS, {}, 'C', settings, NOW, { preassigned: false }).lists,
    ).toEqual([]);
  });

  it('[subscribe.expiry-asked-only] a single opt-in signup is confirmed at once', () => {
    const single = testSettings({ opt_in: 'single' });
    const call = parsedCall('changed', undefined, single);
    const next = decideSubscribe(undefined, call, {
      trusted: false,
      settings: single,
      now: NOW,
    }).next;
    expect(next?.status).toBe('C');
    expect(next?.confirmed_at).toBe(NOW.toISOString());
    expect(next?.activation_log).toBeUndefined();
  });
});

describe('expiry, cooldown and cap boundaries', () => {
  const settings = testSettings();
  const SECOND = 1000;
  const pending = storedRecord({ label: 'S', status: 'S', activationMinutesAgo: 60 * 24 })!;

  it('[subscribe.unconfirmed-expiry] an S is gone from the second its expiry is reached; other states never expire', () => {
    const at = NOW.getTime() / SECOND;
    expect(isExpired({ ...pending, expires_at: at }, NOW)).toBe(true);
    expect(isExpired({ ...pending, expires_at: at - 1 }, NOW)).toBe(true);
    expect(isExpired({ ...pending, expires_at: at + 1 }, NOW)).toBe(false);
    expect(isExpired(pending, NOW)).toBe(false);
    for (const status of ['C', 'U', 'B', 'P'] as const) {
      expect(isExpired({ ...pending, status, expires_at: at - 1 }, NOW)).toBe(false);
    }
  });

  it('[subscribe.expiry-asked-only] only an S that was never confirmed, or already expires, may expire', () => {
    const onceConfirmed = { ...pending, confirmed_at: '2026-10-01T00:00:00.000Z' };
    expect(neverConfirmed(pending)).toBe(true);
    expect(neverConfirmed(onceConfirmed)).toBe(false);
    expect(neverConfirmed({ ...onceConfirmed, expires_at: NOW.getTime() / SECOND })).toBe(true);
    for (const status of ['C', 'U', 'B', 'P'] as const) {
      expect(neverConfirmed({ ...pending, status })).toBe(false);
      expect(neverConfirmed({ ...pending, status, expires_at: NOW.getTime() / SECOND })).toBe(
        false,
      );
    }
  });

  it('[subscribe.expiry-asked-only] an unasked S is one never sent an activation', () => {
    const { activation_sent_at: _sent, ...neverSent } = pending;
    expect(isUnasked(neverSent)).toBe(true);
    expect(isUnasked({ ...neverSent, activation_log: [] })).toBe(true);
    expect(isUnasked(pending)).toBe(false);
    expect(isUnasked({ ...neverSent, activation_log: [NOW.getTime()] })).toBe(false);
    expect(isUnasked({ ...neverSent, status: 'C' })).toBe(false);
  });

  it('[subscribe.activation-cap] a mail exactly one window old no longer counts', () => {
    const day = 24 * 60 * MINUTE;
    const log = [NOW.getTime() - day, NOW.getTime() - 2 * 60 * MINUTE, NOW.getTime() - 60 * MINUTE];
    const capped = {
      ...pending,
      activation_sent_at: NOW.getTime() - 60 * MINUTE,
      activation_log: log,
    };
    const call = parsedCall('repeated', undefined, settings);
    const decision = decideSubscribe(capped, call, { trusted: false, settings, now: NOW });
    expect(decision.mails).toEqual(['activation']);
    expect(decision.next?.activation_log).toEqual([...log.slice(1), NOW.getTime()]);
    const inside = { ...capped, activation_log: [(log[0] as number) + 1, ...log.slice(1)] };
    expect(decideSubscribe(inside, call, { trusted: false, settings, now: NOW }).mails).toEqual([]);
  });

  it('[subscribe.activation-cap] an activation may be resent exactly when the cooldown has passed', () => {
    const call = parsedCall('repeated', undefined, settings);
    const cooldown = settings.resend_cooldown_minutes * MINUTE;
    const at = (ago: number) => ({ ...pending, activation_sent_at: NOW.getTime() - ago });
    expect(
      decideSubscribe(at(cooldown), call, { trusted: false, settings, now: NOW }).mails,
    ).toEqual(['activation']);
    expect(
      decideSubscribe(at(cooldown - 1), call, { trusted: false, settings, now: NOW }).mails,
    ).toEqual([]);
  });

  it('[subscribe.activation-cap] the log of an expired record carries over to its fresh record', () => {
    const single = testSettings({ opt_in: 'single' });
    const recent = NOW.getTime() - 60 * MINUTE;
    const expired = {
      ...pending,
      activation_log: [recent],
      expires_at: NOW.getTime() / SECOND - 1,
    };
    const call = parsedCall('repeated', undefined, single);
    const next = decideSubscribe(expired, call, {
      trusted: false,
      settings: single,
      now: NOW,
    }).next;
    expect(next?.created).toBe(NOW.toISOString());
    expect(next?.activation_log).toEqual([recent]);
  });

  it('[subscribe.consent] a keyed call bringing a U back keeps the call’s evidence', () => {
    const consent = {
      channel: 'api' as const,
      subscribed: { at: NOW.toISOString(), ip: '203.0.113.9', user_agent: 'Client/1.0' },
    };
    const gone = storedRecord({ label: 'U', status: 'U', activationMinutesAgo: 60 * 24 * 3 });
    const call = parsedCall('repeated', undefined, settings);
    for (const optIn of ['double', 'single'] as const) {
      const s = testSettings({ opt_in: optIn });
      const next = decideSubscribe(gone, call, {
        trusted: true,
        settings: s,
        now: NOW,
        consent,
      }).next;
      expect(next?.consent).toEqual(consent);
    }
  });
});
