/**
 * The operator of the campaign suites: `npx newsletter --local ...` against a running local
 * service (the endpoints file `npm start` writes), and the oracles read past the engine: the
 * mails the local SES stored and the subscribers the table holds.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type DynamoDBDocumentClient, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import type { StoredMail } from '../../../infra/local/stand-ins/ses-local.ts';
import { DynamoCampaignStore } from '../../../shared/adapters/store/dynamo-campaign-store.ts';
import type { RecipientCounts } from '../../../shared/domain/campaign/campaign-report.ts';
import { type CliResult, runCli } from '../../cli/cli-harness.ts';
import { documentClient } from '../../support/local-dynamo.ts';
import type { LocalService } from './local-service.ts';

/** An issue's HTML with the original's tags and a style block that must survive. */
export const ISSUE_HTML = `<!DOCTYPE html>
<html><head><style>a { color: red }</style></head>
<body><h1>Hello {name}</h1><p>This went to {email}.</p>
<p><a href="{unsubscription_url}">Unsubscribe</a></p></body></html>`;

/** What the campaign suites do and read. */
export interface CampaignOperator {
  readonly campaigns: DynamoCampaignStore;
  readonly db: DynamoDBDocumentClient;
  cli(...argv: string[]): Promise<CliResult>;
  /** Runs a command that must succeed; its standard output. */
  cliOk(...argv: string[]): Promise<string>;
  /** `newsletters create` with ISSUE_HTML; the issue's id. */
  createIssue(subject: string, lists: readonly number[]): Promise<number>;
  /** A subscriber added by a trusted caller, as a back office does. */
  add(email: string, lists: readonly number[], status?: 'C' | 'S'): Promise<void>;
  /** The mails of an issue (by its unique subject) as the mailbox holds them this moment. */
  mailsOf(subject: string): Promise<StoredMail[]>;
  /** The counts of `newsletters report ID --json`. */
  report(id: number): Promise<RecipientCounts>;
  /** Everyone the table holds as C on one of the lists, sorted. */
  confirmedOn(lists: readonly number[]): Promise<string[]>;
  /** A subscriber's status as the table holds it, once the service is quiet. */
  statusOf(email: string): Promise<unknown>;
  close(): Promise<void>;
}

/** The addresses the mails went to, one entry per mail, sorted. */
export function addressesOf(mails: readonly StoredMail[]): string[] {
  return mails.map((mail) => (mail.destination.to[0] ?? '').replace(/^.*<|>$/g, '')).sort();
}

/** Waits for an event of the send; a bound on the wait, not a timing assertion. */
export async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 1_200; tries++) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`gave up waiting for ${what}`);
}

export async function campaignOperator(service: LocalService): Promise<CampaignOperator> {
  const dir = await mkdtemp(join(tmpdir(), 'campaign-operator-'));
  await writeFile(join(dir, 'local-endpoints.json'), JSON.stringify(service.stack.endpoints));
  const db = documentClient(service.stack.dynamo.endpoint);
  const table = service.stack.tableName;
  const cli = (...argv: string[]) => runCli(['--local', '--data-dir', dir, ...argv], { cwd: dir });
  const cliOk = async (...argv: string[]): Promise<string> => {
    const result = await cli(...argv);
    expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  };
  return {
    campaigns: new DynamoCampaignStore(db, table),
    db,
    cli,
    cliOk,
    createIssue: async (subject, lists) => {
      await writeFile(join(dir, 'issue.html'), ISSUE_HTML);
      const out = await cliOk(
        'newsletters',
        'create',
        '--subject',
        subject,
        '--html',
        'issue.html',
        '--lists',
        lists.join(','),
      );
      const id = /newsletter (\d+)/.exec(out)?.[1];
      if (!id) throw new Error(`no id in ${out}`);
      return Number(id);
    },
    add: async (email, lists, status = 'C') => {
      const answer = await service.post('/subscribers/add', {
        api_key: service.apiKey,
        email,
        name: email.split('@')[0],
        lists,
        status,
      });
      expect(answer.status, answer.text).toBe(200);
    },
    mailsOf: async (subject) =>
      (await service.stack.mailboxNow()).filter((mail) => mail.subject === subject),
    report: async (id) => {
      const printed = JSON.parse(await cliOk('newsletters', 'report', String(id), '--json')) as {
        counts: RecipientCounts;
      };
      return printed.counts;
    },
    confirmedOn: async (lists) => {
      await service.stack.settled();
      const found: string[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await db.send(
          new ScanCommand({
            TableName: table,
            ConsistentRead: true,
            FilterExpression: 'sk = :subscriber AND #status = :confirmed',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':subscriber': 'subscriber', ':confirmed': 'C' },
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        for (const item of page.Items ?? []) {
          const on = (item.lists as Set<number> | number[] | undefined) ?? [];
          if ([...on].some((list) => lists.includes(Number(list)))) found.push(String(item.email));
        }
        start = page.LastEvaluatedKey;
      } while (start);
      return found.sort();
    },
    statusOf: async (email) => {
      await service.stack.settled();
      const { Item } = await db.send(
        new GetCommand({
          TableName: table,
          Key: { pk: `SUBSCRIBER#${email}`, sk: 'subscriber' },
          ConsistentRead: true,
        }),
      );
      return Item?.status;
    },
    close: async () => {
      db.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
