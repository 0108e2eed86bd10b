import { type Command, InvalidArgumentError } from 'commander';
import type { CampaignRecord } from '../../shared/domain/campaign/campaign.ts';
import {
  DEFAULT_SCHEDULE_LATENESS_MINUTES,
  isScheduleOverdue,
} from '../../shared/domain/campaign/campaign-schedule.ts';
import { isNewsletterError, type NewsletterError } from '../../shared/domain/errors.ts';
import { isPublicIssue } from '../../shared/domain/newsletter-issue.ts';
import type { CampaignDependencies } from '../../shared/operations/campaign/campaign-dependencies.ts';
import {
  cancelNewsletter,
  pauseNewsletter,
  resumeNewsletter,
  sendNewsletter,
} from '../../shared/operations/campaign/control-campaign.ts';
import { QUOTA_UNKNOWN_MESSAGE } from '../../shared/operations/campaign/quota-fit.ts';
import {
  copyNewsletterIssue,
  createNewsletterIssue,
  editNewsletterIssue,
  type NewsletterInput,
  type SaveDependencies,
} from '../../shared/operations/campaign/save-newsletter.ts';
import {
  type ScheduleDependencies,
  scheduleNewsletter,
  unscheduleNewsletter,
} from '../../shared/operations/campaign/schedule-campaign.ts';
import { testNewsletter } from '../../shared/operations/campaign/test-send.ts';
import { NO_METRICS } from '../../shared/operations/dependencies.ts';
import { NEWSLETTERS_LIMIT } from '../../shared/operations/list-newsletters.ts';
import { runOperation } from '../../shared/operations/run-operation.ts';
import { engagementLines, engagementRows } from '../campaigns/engagement-lines.ts';
import { watchCampaign, watchSummary } from '../campaigns/watch-campaign.ts';
import { watchEngagement } from '../campaigns/watch-engagement.ts';
import { writeReport } from '../campaigns/write-report.ts';
import { CliError, EXIT } from '../cli-error.ts';
import type { Services } from '../connection/services.ts';
import type { CliContext } from '../context.ts';
import { formatTable } from '../format-table.ts';
import { writeLine } from '../io.ts';
import {
  parseBoolean,
  parseNonNegativeInteger,
  parsePositiveInteger,
  readTextInput,
} from '../option-values.ts';

const SUBJECT_MAX = 200;
const URL_MAX = 2048;

function parseSubject(value: string): string {
  const subject = value.trim();
  if (subject.length === 0 || subject.length > SUBJECT_MAX) {
    throw new InvalidArgumentError(`Expected 1-${SUBJECT_MAX} characters.`);
  }
  if (/\p{Cc}/u.test(subject)) {
    throw new InvalidArgumentError('Expected one line without control characters.');
  }
  return subject;
}

/** An http(s) URL, or the empty string meaning "no web version". */
function parseUrl(value: string): string {
  const text = value.trim();
  if (text === '') return '';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidArgumentError('Expected an absolute http(s) URL.');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || text.length > URL_MAX) {
    throw new InvalidArgumentError('Expected an absolute http(s) URL.');
  }
  return text;
}

/** `1,2` → [1, 2]. */
function parseLists(value: string): number[] {
  const ids = value.split(',').map((part) => part.trim());
  if (ids.length === 0 || ids.some((id) => !/^\d{1,9}$/.test(id) || Number(id) < 1)) {
    throw new InvalidArgumentError('Expected list ids separated by commas, e.g. 1,2.');
  }
  return [...new Set(ids.map(Number))];
}

function describe(issue: CampaignRecord): string {
  const visibility = isPublicIssue(issue) ? 'listed publicly' : 'listed to keyed callers only';
  return `newsletter ${issue.id} (${issue.status}${issue.private ? ', private' : ''}; ${visibility})`;
}

/**
 * The status as the listing shows it: a sending issue waiting for its turn ([campaign.overlap]),
 * a scheduled issue with its time, and MISSED when its
 * schedule fired too late to send ([campaign.schedule-late]), or when it is still scheduled
 * more than the lateness after its time, whatever the cause ([campaign.schedule-overdue]).
 */
function statusOf(issue: CampaignRecord, now: Date, latenessMinutes: number): string {
  if (issue.status === 'sending' && issue.waiting_since)
    return `sending (waiting for its turn since ${issue.waiting_since})`;
  if (issue.status !== 'scheduled') return issue.status;
  const at = issue.scheduled_at ? ` ${issue.scheduled_at}` : '';
  if (issue.schedule_missed_at) return `scheduled${at} (MISSED: fired ${issue.schedule_missed_at})`;
  return isScheduleOverdue(issue, now, latenessMinutes)
    ? `scheduled${at} (MISSED: not started ${latenessMinutes} min after its time)`
    : `scheduled${at}`;
}

/** The settings' schedule lateness, read only when the listing shows a scheduled issue. */
async function latenessFor(issues: readonly CampaignRecord[], services: Services) {
  if (!issues.some((issue) => issue.status === 'scheduled'))
    return DEFAULT_SCHEDULE_LATENESS_MINUTES;
  return (await services.settings()).settings.campaign.schedule_lateness_minutes;
}

/** Progress of a run as one phrase: "120 of 500 sent, 3 skipped, 0 failed". */
function progress(issue: CampaignRecord): string {
  if (issue.run === 0) return 'not sent yet';
  const total = issue.plan_done ? String(issue.total) : `${issue.total}+ (planning)`;
  return `${issue.sent} of ${total} sent, ${issue.skipped} skipped, ${issue.failed} failed`;
}

/** Options that carry content. */
interface ContentOptions {
  readonly subject?: string;
  readonly html?: string;
  readonly text?: string;
  readonly lists?: number[];
  readonly url?: string;
  readonly private?: boolean;
}

/** The CLI's input for the save operations: files read, `--url ""` as "remove". */
async function inputOf(options: ContentOptions, context: CliContext): Promise<NewsletterInput> {
  const read = (path: string | undefined) =>
    path === undefined ? undefined : readTextInput(path, context.io);
  const [html, text] = await Promise.all([read(options.html), read(options.text)]);
  return {
    ...(options.subject !== undefined ? { subject: options.subject } : {}),
    ...(html !== undefined ? { html } : {}),
    ...(text !== undefined ? { text } : {}),
    ...(options.lists !== undefined ? { lists: options.lists } : {}),
    ...(options.url !== undefined ? { url: options.url === '' ? null : options.url } : {}),
    ...(options.private !== undefined ? { private: options.private } : {}),
  };
}

/** The campaign operations' dependencies over this run's services. */
async function campaignDeps(
  services: Services,
  queue: boolean,
): Promise<CampaignDependencies & SaveDependencies> {
  const settings = (await services.settings()).settings;
  return {
    campaigns: services.campaigns(),
    store: services.store(),
    // The planner's queue is needed only by the commands that queue work.
    queue: queue
      ? services.campaignQueue()
      : {
          plan: () => Promise.reject(new Error('no queue for this command')),
          send: () => Promise.reject(new Error('no queue for this command')),
        },
    settings: async () => settings,
    now: () => new Date(),
    // The operations' log lines are for Lambda's logs; the CLI reports results itself.
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    metrics: NO_METRICS,
  };
}

/** What scheduling needs: the campaign operations' dependencies and the scheduler. */
async function scheduleDeps(services: Services): Promise<ScheduleDependencies> {
  const scheduler = services.campaignScheduler();
  return { ...(await campaignDeps(services, false)), scheduler };
}

/**
 * Says that an issue does not fit in the daily quota and asks whether to go on
 * ([campaign.quota]): on a terminal the answer is read from standard input; without one, the
 * answer is no (`--yes` goes on without asking).
 */
async function confirmOverQuota(context: CliContext, message: string): Promise<boolean> {
  writeLine(context.io.stderr, `warning: ${message}`);
  const stdin = context.io.stdin as typeof context.io.stdin & { isTTY?: boolean };
  if (!stdin.isTTY) return false;
  context.io.stderr.write('Send it anyway? [y/N] ');
  const answer = await firstLine(stdin);
  return /^\s*y(es)?\s*$/i.test(answer);
}

/** The first line of a stream (what a person typed before Enter). */
async function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    text += String(chunk);
    const end = text.indexOf('\n');
    if (end !== -1) return text.slice(0, end);
  }
  return text;
}

/** An operation's error value, as the CLI reports it (exit code 1). */
function failed(error: NewsletterError): never {
  throw new CliError(error.message);
}

/** `newsletters list|create|edit|send|schedule|unschedule|pause|resume|cancel|...`: issues and their sending. */
export function registerNewslettersCommands(program: Command, context: CliContext): void {
  const newsletters = program
    .command('newsletters')
    .description('Write newsletter issues and send them to their lists');

  newsletters
    .command('list')
    .description(
      `Show the ${NEWSLETTERS_LIMIT} newest issues of any status, newest first, with their sending (PUBLIC: what callers without key see)`,
    )
    .option('--all', 'show every issue, not only the newest')
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { all?: boolean; json?: boolean }) => {
      const services = await context.services();
      const ids: number[] = [];
      for await (const issue of services.store().allNewsletterIssues({
        order: 'newest-first',
        ...(options.all ? {} : { pageSize: NEWSLETTERS_LIMIT }),
      })) {
        ids.push(issue.id);
        if (!options.all && ids.length >= NEWSLETTERS_LIMIT) break;
      }
      const campaigns = services.campaigns();
      const issues = (await Promise.all(ids.map((id) => campaigns.getCampaign(id)))).filter(
        (issue): issue is CampaignRecord => issue !== undefined,
      );
      if (options.json) {
        writeLine(context.io.stdout, JSON.stringify(issues, null, 2));
        return;
      }
      if (issues.length === 0) {
        writeLine(context.io.stdout, 'No newsletters yet.');
        return;
      }
      const lateness = await latenessFor(issues, services);
      const now = new Date();
      const rows = issues.map((issue) => [
        String(issue.id),
        statusOf(issue, now, lateness),
        issue.private ? 'yes' : 'no',
        isPublicIssue(issue) ? 'yes' : 'no',
        issue.lists.join(',') || '-',
        issue.run === 0 ? '-' : `${issue.sent}/${issue.total}`,
        issue.created,
        issue.sent_at ?? '-',
        issue.subject,
      ]);
      writeLine(
        context.io.stdout,
        formatTable(
          ['ID', 'STATUS', 'PRIVATE', 'PUBLIC', 'LISTS', 'SENT', 'CREATED', 'SENT_AT', 'SUBJECT'],
          rows,
        ),
      );
    });

  newsletters
    .command('create')
    .description(
      'Create a draft issue (id from the newsletter sequence). Tags in the parts: {name}, {surname}, {email}, {unsubscription_url}, {profile_<id>}',
    )
    .requiredOption(
      '--subject <subject>',
      `subject, one line of 1-${SUBJECT_MAX} characters`,
      parseSubject,
    )
    .option('--html <file>', 'the HTML part, from a file (- reads standard input)')
    .option('--text <file>', 'the text part, from a file (default: derived from the HTML)')
    .option('--lists <ids>', 'the lists it goes to, e.g. 1,2', parseLists)
    .option('--private', 'list it only to callers with the API key')
    .option('--url <url>', 'public web version (http/https)', parseUrl)
    .action(async (options: ContentOptions) => {
      const services = await context.services();
      const deps = await campaignDeps(services, false);
      const input = await inputOf(options, context);
      const saved = await runOperation(deps, 'create_newsletter', () =>
        createNewsletterIssue(deps, input),
      );
      if (isNewsletterError(saved)) failed(saved);
      for (const warning of saved.warnings) writeLine(context.io.stderr, `warning: ${warning}`);
      writeLine(context.io.stdout, `Created ${describe(saved.issue)}.`);
    });

  newsletters
    .command('edit')
    .description(
      'Change an issue: its content (subject, parts, lists) while it is a draft or scheduled; private and url at any time',
    )
    .argument('<id>', 'newsletter id', parsePositiveInteger)
    .option('--subject <subject>', 'new subject', parseSubject)
    .option('--html <file>', 'new HTML part, from a file (- reads standard input)')
    .option('--text <file>', 'new text part, from a file')
    .option('--lists <ids>', 'the lists it goes to, e.g. 1,2', parseLists)
    .option('--private <true|false>', 'list it only to callers with the API key', parseBoolean)
    .option('--url <url>', 'public web version; "" removes it', parseUrl)
    .action(async (id: number, options: ContentOptions) => {
      if (Object.values(options).every((value) => value === undefined)) {
        throw new CliError(
          'Nothing to change: pass --subject, --html, --text, --lists, --private or --url.',
          EXIT.usage,
        );
      }
      const services = await context.services();
      const deps = await campaignDeps(services, false);
      const input = await inputOf(options, context);
      const saved = await runOperation(deps, 'edit_newsletter', () =>
        editNewsletterIssue(deps, id, input),
      );
      if (isNewsletterError(saved)) failed(saved);
      for (const warning of saved.warnings) writeLine(context.io.stderr, `warning: ${warning}`);
      writeLine(context.io.stdout, `Updated ${describe(saved.issue)}.`);
    });

  newsletters
    .command('send')
    .description(
      "Send an issue to the confirmed subscribers of its lists, paced to the settings' rate and SES's quota",
    )
    .argument('<id>', 'newsletter id', parsePositiveInteger)
    .option(
      '--new-only',
      'a sent issue: send it to the confirmed subscribers of its lists it has not reached yet',
    )
    .option(
      '--yes',
      "go on without asking when the issue does not fit in the account's daily SES quota",
    )
    .action(async (id: number, options: { newOnly?: boolean; yes?: boolean }) => {
      const services = await context.services();
      const deps = await campaignDeps(services, true);
      const apiRoot = services.connection.apiRoot;
      const started = await runOperation(deps, 'send_newsletter', () =>
        sendNewsletter(
          deps,
          {
            id,
            newOnly: options.newOnly === true,
            quota: services.sendQuota(),
            acceptQuota: options.yes === true,
            confirmOverQuota: (message) => confirmOverQuota(context, message),
            quotaUnknown: () => writeLine(context.io.stderr, `warning: ${QUOTA_UNKNOWN_MESSAGE}`),
          },
          apiRoot ? { apiRoot } : {},
        ),
      );
      if (isNewsletterError(started) && started.code === 'over_quota')
        throw new CliError(
          `Not sent: newsletter ${id} is as it was. Pass --yes to send it anyway.`,
        );
      if (isNewsletterError(started)) failed(started);
      writeLine(
        context.io.stdout,
        started.waiting_since
          ? `Newsletter ${id}${started.new_only ? ' to the new' : ''} (run ${started.run}) waits for its turn: another campaign is sending and campaign.overlap is "wait"; it starts once none is. \`newsletters watch ${id}\` shows its progress.`
          : `Sending newsletter ${id}${started.new_only ? ' to the new' : ''} (run ${started.run}): \`newsletters watch ${id}\` shows its progress.`,
      );
    });

  newsletters
    .command('schedule')
    .description(
      'Schedule a draft to start sending at a time (an EventBridge schedule that fires once); a schedule firing later than campaign.schedule_lateness_minutes does not send',
    )
    .argument('<id>', 'newsletter id', parsePositiveInteger)
    .requiredOption(
      '--at <time>',
      'when to send: ISO 8601 with a zone, e.g. 2026-12-01T09:00:00Z or 2026-12-01T10:00:00+01:00',
    )
    .action(async (id: number, options: { at: string }) => {
      const services = await context.services();
      const deps = await scheduleDeps(services);
      const apiRoot = services.connection.apiRoot;
      const scheduled = await runOperation(deps, 'schedule_newsletter', () =>
        scheduleNewsletter(deps, { id, at: options.at }, apiRoot ? { apiRoot } : {}),
      );
      if (isNewsletterError(scheduled)) failed(scheduled);
      writeLine(
        context.io.stdout,
        `Scheduled newsletter ${id} for ${scheduled.scheduled_at}: it starts sending then (\`newsletters unschedule ${id}\` takes it back).`,
      );
    });

  newsletters
    .command('unschedule')
    .description('Take a scheduled issue back to draft and delete its schedule')
    .argument('<id>', 'newsletter id', parsePositiveInteger)
    .action(async (id: number) => {
      const services = await context.services();
      const deps = await scheduleDeps(services);
      const draft = await runOperation(deps, 'unschedule_newsletter', () =>
        unscheduleNewsletter(deps, id),
      );
      if (isNewsletterError(draft)) failed(draft);
      writeLine(context.io.stdout, `Unscheduled newsletter ${id}: it is a draft again.`);
    });

  newsletters
    .command('test')
    .description(
      'Send an issue as a test to at most 5 addresses: the real renderer and headers, [TEST] in the subject, nothing recorded',
    )
    .argument('<id>', 'newsletter id', parsePositiveInteger)
    .requiredOption(
      '--to <address>',
      'an address to send the test to (repeat for more, at most 5)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .action(async (id: number, options: { to: string[] }) => {
      const services = await context.services();
      const deps = await campaignDeps(services, true);
      const apiRoot = services.connection.apiRoot;
      const queued = await runOperation(deps, 'test_newsletter', () =>
        testNewsletter(deps, id, options.to, apiRoot ? { apiRoot } : {}),
      );
      if (isNewsletterError(queued)) failed(queued);
      writeLine(context.io.stdout, `Test of newsletter ${id} queued for ${queued.to.join(', ')}.`);
      // What a reader without those values sees ([campaign.empty-values]), so the test is read
      // knowing it: a test to a non-subscriber shows these where it has no sample.
      const fallbacks = Object.entries((await deps.settings()).campaign.tag_fallbacks);
      if (fallbacks.length > 0)
        writeLine(
          context.io.stdout,
          `Empty values read as: ${fallbacks.map(([tag, text]) => `{${tag}} "${text}"`).join(', ')} (campaign.tag_fallbacks).`,
        );
    });

  newsletters
    .command('watch')
    .description(
      "Show a sending issue's progress live (sent, skipped, failed, rate, time left) until it stops sending",
    )
    .argument('<id>', 'newsletter id', parsePositiveInteger)
    .option('--interval <seconds>', 'how often to look', parsePositiveInteger, 1)
    .option(
      '--opens <minutes>',
      'once it is sent, show opens and clicks as they come for this long (0: once)',
      parseNonNegativeInteger,
      0,
    )
    .action(async (id: number, options: { interval: number; opens: number }) => {
      const services = await context.services();
      const clock = {
        now: () => Date.now(),
        sleep: (ms: number) => new Promise<void>((done) => setTimeout(done, ms)),
      };
      const last = await watchCampaign(
        services.campaigns(),
        id,
        context.io.stderr,
        clock,
        options.interval * 1000,
      );
      if (!last) throw new CliError(`Newsletter ${id} does not exist.`);
      writeLine(context.io.stdout, `Newsletter ${id} is ${last.status}: ${progress(last)}.`);
      const summary = watchSummary(last, Date.now());
      if (summary) writeLine(context.io.stdout, summary);
      // [engagement.watch]: what readers do with it, once it is out.
      if (last.status === 'sent' && last.sent > 0)
        await watchEngagement(services.engagement(), id, last.sent, context.io.stdout, clock, {
          intervalMs: Math.max(options.interval, 5) * 1000,
          forMs: options.opens * 60_000,
        });
    });

  newsletters
    .command('report')
    .description(
      "An issue's outcome from its recipient records: sent, skipped (why), failed, unsubscribed through it, bounced, complained",
    )
    .argument('<id>', 'newsletter id', parsePositiveInteger)
    .option(
      '--csv <file>',
      'also write one row per recipient (address, outcome, time, SES message id); - for standard output',
    )
    .option('--json', 'print the counts as JSON')
    .action(async (id: number, options: { csv?: string; json?: boolean }) => {
      const services = await context.services();
      // What rows may show depends on campaign.tracking; without readable settings, the
      // default (`counts`: figures, no per-person times).
      const tracking = await services.settings().then(
        (stored) => stored.settings.campaign.tracking,
        () => 'counts' as const,
      );
      const report = await writeReport(services.campaigns(), id, options.csv, context, {
        store: services.engagement(),
        tracking,
      });
      if (isNewsletterError(report)) failed(report);
      if (options.json) {
        writeLine(context.io.stdout, JSON.stringify(report, null, 2));
        return;
      }
      if (options.csv === '-') return;
      const c = report.counts;
      const reasons = Object.entries(c.skipped_by_reason)
        .map(([reason, count]) => `${reason} ${count}`)
        .join(', ');
      writeLine(
        context.io.stdout,
        [
          `Newsletter ${id} (${report.status}, run ${report.run}): ${report.subject}`,
          formatTable(
            ['OUTCOME', 'COUNT'],
            [
              ['recipients', String(c.recipients)],
              ['sent', String(c.sent)],
              ['skipped', `${c.skipped}${reasons ? ` (${reasons})` : ''}`],
              ['failed', String(c.failed)],
              ['not sent yet', String(c.unsent)],
              ['unsubscribed through it', String(c.unsubscribed)],
              ['bounced', String(c.bounced)],
              ['complained', String(c.complained)],
              ...engagementRows(report.engagement),
            ],
          ),
          ...engagementLines(report.engagement),
        ].join('\n'),
      );
    });

  newsletters
    .command('copy')
    .description('Make a new draft from an issue: its subject, parts, lists and privacy')
    .argument('<id>', 'newsletter id', parsePositiveInteger)
    .action(async (id: number) => {
      const services = await context.services();
      const deps = await campaignDeps(services, false);
      const copied = await runOperation(deps, 'copy_newsletter', () =>
        copyNewsletterIssue(deps, id),
      );
      if (isNewsletterError(copied)) failed(copied);
      writeLine(
        context.io.stdout,
        `Created ${describe(copied.issue)}, a copy of newsletter ${id}.`,
      );
    });

  const control = (
    name: 'pause' | 'resume' | 'cancel',
    description: string,
    operation: (
      deps: CampaignDependencies,
      id: number,
    ) => Promise<CampaignRecord | NewsletterError>,
    done: string,
  ): void => {
    newsletters
      .command(name)
      .description(description)
      .argument('<id>', 'newsletter id', parsePositiveInteger)
      .action(async (id: number) => {
        const services = await context.services();
        const deps = await campaignDeps(services, name === 'resume');
        const result = await runOperation(deps, `${name}_newsletter`, () => operation(deps, id));
        if (isNewsletterError(result)) failed(result);
        writeLine(context.io.stdout, `${done} newsletter ${id}: ${progress(result)}.`);
      });
  };
  control(
    'pause',
    'Pause a sending issue: no mail of it goes out from about a second later',
    pauseNewsletter,
    'Paused',
  );
  control(
    'resume',
    'Resume a paused issue: everyone not yet mailed gets it, once (also repairs a stuck send)',
    resumeNewsletter,
    'Resumed',
  );
  control(
    'cancel',
    'Cancel a scheduled, sending or paused issue: nothing more of it is sent',
    cancelNewsletter,
    'Cancelled',
  );
}
