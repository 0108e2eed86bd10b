import type { DueMail, MailPort } from '../../shared/adapters/mail/mail-port.ts';
import type { Store } from '../../shared/adapters/store/store-port.ts';
import { parseSettings } from '../../shared/domain/parse-settings.ts';
import type { Settings, SettingsInput } from '../../shared/domain/settings-schema.ts';
import type { SubscriberRecord } from '../../shared/domain/subscriber.ts';
import type {
  Dependencies,
  Logger,
  MetricDimensions,
  MetricName,
  Metrics,
} from '../../shared/operations/dependencies.ts';

/** A stored subscriber for rules tested without a table: Ada, confirmed on list 1, no links. */
export function subscriberRecord(overrides: Partial<SubscriberRecord> = {}): SubscriberRecord {
  return {
    id: 7,
    email: 'ada@example.com',
    name: 'Ada',
    surname: '',
    gender: '',
    lists: [1],
    profile: {},
    status: 'C',
    created: '2026-11-01T00:00:00.000Z',
    updated: '2026-11-01T00:00:00.000Z',
    version: 1,
    tokens: {},
    ...overrides,
  };
}

/** Settings with a public, a private and a pre-assigned list and two profile fields. */
export function testSettings(overrides: Partial<SettingsInput> = {}): Settings {
  return parseSettings({
    lists: [
      { id: 1, name: 'Weekly' },
      { id: 2, name: 'Staff only', private: true },
      { id: 3, name: 'Announcements', preassigned: true },
      { id: 4, name: 'Events' },
    ],
    profile_fields: [
      { id: '1', name: 'City' },
      { id: 'company', name: 'Company' },
    ],
    sender: { address: 'news@example.com', name: 'Example News' },
    admin_address: 'admin@example.com',
    public_base_url: 'https://news.example.com/api/newsletter/v1',
    ...overrides,
  });
}

/** A mail port that records what it is handed, and can be told to fail. */
export class RecordingMailer implements MailPort {
  readonly sent: DueMail[] = [];
  failing = false;

  async send(mail: DueMail): Promise<void> {
    if (this.failing) throw new Error('mail service down');
    this.sent.push(mail);
  }

  of(kind: DueMail['kind'], to?: string): DueMail[] {
    return this.sent.filter((mail) => mail.kind === kind && (to === undefined || mail.to === to));
  }
}

/** A logger that keeps its lines for assertions. */
export class RecordingLogger implements Logger {
  readonly lines: { level: string; event: string; fields?: object }[] = [];
  info(event: string, fields?: object): void {
    this.lines.push({ level: 'info', event, ...(fields ? { fields } : {}) });
  }
  warn(event: string, fields?: object): void {
    this.lines.push({ level: 'warn', event, ...(fields ? { fields } : {}) });
  }
  error(event: string, fields?: object): void {
    this.lines.push({ level: 'error', event, ...(fields ? { fields } : {}) });
  }
}

/** Metrics that keep their counts for assertions. */
export class RecordingMetrics implements Metrics {
  readonly counts: Partial<Record<MetricName, number>> = {};
  /** The dimensions each count was also made under, in order (none: not recorded). */
  readonly dimensioned: { name: MetricName; dimensions: MetricDimensions }[] = [];
  /** Every level reported in percent, in order. */
  readonly percents: { name: MetricName; value: number; dimensions?: MetricDimensions }[] = [];
  count(name: MetricName, value = 1, dimensions?: MetricDimensions): void {
    this.counts[name] = (this.counts[name] ?? 0) + value;
    if (dimensions) this.dimensioned.push({ name, dimensions });
  }
  percent(name: MetricName, value: number, dimensions?: MetricDimensions): void {
    this.percents.push({ name, value, ...(dimensions ? { dimensions } : {}) });
  }
}

/** A controllable clock. */
export class TestClock {
  constructor(public current = new Date('2026-11-22T10:00:00.000Z')) {}
  now = (): Date => new Date(this.current);
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

/** Dependencies over a real store with a recording mailer, settings and clock under control. */
export function testDependencies(
  store: Store,
  options: {
    settings?: Settings;
    mailer?: RecordingMailer;
    clock?: TestClock;
    log?: RecordingLogger;
  } = {},
): Dependencies & {
  mailer: RecordingMailer;
  clock: TestClock;
  logger: RecordingLogger;
  metrics: RecordingMetrics;
  current: { settings: Settings };
} {
  const mailer = options.mailer ?? new RecordingMailer();
  const clock = options.clock ?? new TestClock();
  const logger = options.log ?? new RecordingLogger();
  const current = { settings: options.settings ?? testSettings() };
  return {
    store,
    mailer,
    clock,
    logger,
    current,
    settings: async () => current.settings,
    now: clock.now,
    log: logger,
    metrics: new RecordingMetrics(),
  };
}

/**
 * Fresh addresses (`<tag>-<n>@example.com`), numbered per maker: a file's tests never see each
 * other's subscribers.
 */
export function freshAddresses(): (tag: string) => string {
  let counter = 0;
  return (tag) => {
    counter += 1;
    return `${tag}-${counter}@example.com`;
  };
}
