import { type Command, InvalidArgumentError, Option } from 'commander';
import {
  isPublicIssue,
  type NewsletterIssueRecord,
  type NewsletterIssueStatus,
} from '../../shared/domain/newsletter-issue.ts';
import { NEWSLETTERS_LIMIT } from '../../shared/operations/list-newsletters.ts';
import { CliError, EXIT } from '../cli-error.ts';
import type { CliContext } from '../context.ts';
import { formatTable } from '../format-table.ts';
import { writeLine } from '../io.ts';
import { parseBoolean, parsePositiveInteger } from '../option-values.ts';

const STATUSES: readonly NewsletterIssueStatus[] = ['draft', 'sending', 'sent'];
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

const statusOption = (description: string) =>
  new Option('--status <status>', description).choices(STATUSES);

/** `sent_at` follows the status: set when an issue becomes sent, kept while it stays sent. */
function sentAt(
  before: NewsletterIssueRecord | undefined,
  status: NewsletterIssueStatus,
  now: Date,
): string | null {
  if (status !== 'sent') return null;
  return before?.status === 'sent' && before.sent_at ? before.sent_at : now.toISOString();
}

function describe(issue: NewsletterIssueRecord): string {
  const visibility = isPublicIssue(issue) ? 'listed publicly' : 'listed to keyed callers only';
  return `newsletter ${issue.id} (${issue.status}${issue.private ? ', private' : ''}; ${visibility})`;
}

/** `newsletters list|create|edit`: the issues `GET /newsletters` lists. */
export function registerNewslettersCommands(program: Command, context: CliContext): void {
  const newsletters = program
    .command('newsletters')
    .description('List, create and edit newsletter issues');

  newsletters
    .command('list')
    .description(
      `Show the ${NEWSLETTERS_LIMIT} newest issues of any status, newest first (PUBLIC: what callers without key see)`,
    )
    .option('--all', 'show every issue, not only the newest')
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { all?: boolean; json?: boolean }) => {
      const services = await context.services();
      const issues: NewsletterIssueRecord[] = [];
      for await (const issue of services.store().allNewsletterIssues({
        order: 'newest-first',
        ...(options.all ? {} : { pageSize: NEWSLETTERS_LIMIT }),
      })) {
        issues.push(issue);
        if (!options.all && issues.length >= NEWSLETTERS_LIMIT) break;
      }
      if (options.json) {
        writeLine(context.io.stdout, JSON.stringify(issues, null, 2));
        return;
      }
      if (issues.length === 0) {
        writeLine(context.io.stdout, 'No newsletters yet.');
        return;
      }
      const rows = issues.map((issue) => [
        String(issue.id),
        issue.status,
        issue.private ? 'yes' : 'no',
        isPublicIssue(issue) ? 'yes' : 'no',
        issue.created,
        issue.sent_at ?? '-',
        issue.url ?? '-',
        issue.subject,
      ]);
      writeLine(
        context.io.stdout,
        formatTable(
          ['ID', 'STATUS', 'PRIVATE', 'PUBLIC', 'CREATED', 'SENT_AT', 'URL', 'SUBJECT'],
          rows,
        ),
      );
    });

  newsletters
    .command('create')
    .description('Create an issue (id from the newsletter sequence, created now)')
    .requiredOption(
      '--subject <subject>',
      `subject, one line of 1-${SUBJECT_MAX} characters`,
      parseSubject,
    )
    .addOption(statusOption('status (default: draft); sent sets sent_at to now').default('draft'))
    .option('--private', 'list it only to callers with the API key')
    .option('--url <url>', 'public web version (http/https)', parseUrl)
    .action(
      async (options: {
        subject: string;
        status: NewsletterIssueStatus;
        private?: boolean;
        url?: string;
      }) => {
        const services = await context.services();
        const store = services.store();
        const now = new Date();
        const issue: NewsletterIssueRecord = {
          id: await store.nextId('newsletter'),
          subject: options.subject,
          status: options.status,
          created: now.toISOString(),
          sent_at: sentAt(undefined, options.status, now),
          ...(options.url ? { url: options.url } : {}),
          private: options.private === true,
        };
        await store.putNewsletterIssue(issue);
        writeLine(context.io.stdout, `Created ${describe(issue)}.`);
      },
    );

  newsletters
    .command('edit')
    .description('Change an issue: subject, status, private, url')
    .argument('<id>', 'newsletter id', parsePositiveInteger)
    .option('--subject <subject>', 'new subject', parseSubject)
    .addOption(statusOption('new status; becoming sent sets sent_at to now'))
    .option('--private <true|false>', 'list it only to callers with the API key', parseBoolean)
    .option('--url <url>', 'public web version; "" removes it', parseUrl)
    .action(
      async (
        id: number,
        options: {
          subject?: string;
          status?: NewsletterIssueStatus;
          private?: boolean;
          url?: string;
        },
      ) => {
        if (Object.values(options).every((value) => value === undefined)) {
          throw new CliError(
            'Nothing to change: pass --subject, --status, --private or --url.',
            EXIT.usage,
          );
        }
        const services = await context.services();
        const store = services.store();
        const before = await store.getNewsletterIssue(id);
        if (!before) throw new CliError(`Newsletter ${id} does not exist.`);
        const status = options.status ?? before.status;
        const url = options.url ?? before.url;
        const issue: NewsletterIssueRecord = {
          id,
          subject: options.subject ?? before.subject,
          status,
          created: before.created,
          sent_at: sentAt(before, status, new Date()),
          ...(url ? { url } : {}),
          private: options.private ?? before.private,
        };
        // A full put: the store recomputes the sparse public-index attribute from the record.
        await store.putNewsletterIssue(issue);
        writeLine(context.io.stdout, `Updated ${describe(issue)}.`);
      },
    );
}
