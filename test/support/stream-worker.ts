/**
 * In-process stand-in for the table's stream consumers, for integration tests that drive the
 * operations directly (the e2e and deployed suites run the real event source mappings): after
 * a call, it settles the keyless requests and works off the outbox, as the two stream
 * functions would, by scanning the table for what they would receive, and counts the
 * subscriber changes from the table's own stream when it has one
 * (test/support/count-worker.ts).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { MailPort } from '../../shared/adapters/mail/mail-port.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { deliverMail, MailNotSent } from '../../shared/operations/deliver-mail.ts';
import type { Dependencies } from '../../shared/operations/dependencies.ts';
import { settleSubscribeRequest } from '../../shared/operations/subscribe.ts';
import { countWorker } from './count-worker.ts';

/** What one round of the worker did. */
export interface WorkedOff {
  readonly settled: number;
  readonly sent: number;
  readonly skipped: number;
  /** Mails whose send failed in this round (they stay queued). */
  readonly failed: string[];
}

/** The consumers' work over a table, on demand. */
export function streamWorker(
  client: DynamoDBDocumentClient,
  tableName: string,
  deps: Dependencies & { readonly mailer: MailPort },
): { settle(): Promise<WorkedOff> } {
  const counts = countWorker(tableName, deps.store, deps.now);
  const pending = async () => {
    const items = (await client.send(new ScanCommand({ TableName: tableName }))).Items ?? [];
    const requests = items
      .filter((item) => String(item.pk).startsWith('REQUEST#'))
      .sort((a, b) => String(a.received_at).localeCompare(String(b.received_at)));
    const mails = items
      .filter(
        (item) =>
          String(item.pk).startsWith('OUTBOX#') &&
          ['queued', 'requeued', 'sending'].includes(String(item.state)),
      )
      .sort((a, b) => String(a.created).localeCompare(String(b.created)));
    return {
      requests: requests.map((item) => String(item.pk).slice('REQUEST#'.length)),
      mails: mails.map((item) => String(item.mail_id)),
    };
  };
  // One consumer per shard on AWS: rounds asked for at once run one after the other.
  let queue: Promise<unknown> = Promise.resolve();
  const round = async (): Promise<WorkedOff> => {
    const done = { settled: 0, sent: 0, skipped: 0, failed: [] as string[] };
    // Each mail is tried once per round; settling a request may queue mails for the next pass.
    const tried = new Set<string>();
    for (;;) {
      const { requests, mails } = await pending();
      const fresh = mails.filter((id) => !tried.has(id));
      if (requests.length === 0 && fresh.length === 0) {
        // A table made without its stream (most tests) is not counted.
        if (await counts.hasStream()) await counts.catchUp();
        return done;
      }
      for (const id of requests) {
        const outcome = await settleSubscribeRequest(deps, id);
        if (isNewsletterError(outcome)) throw new Error(`request ${id}: ${outcome.message}`);
        done.settled += 1;
      }
      for (const id of fresh) {
        tried.add(id);
        try {
          const outcome = await deliverMail(deps, id);
          if (outcome === 'sent') done.sent += 1;
          if (outcome === 'skipped') done.skipped += 1;
        } catch (error) {
          if (!(error instanceof MailNotSent)) throw error;
          done.failed.push(id);
        }
      }
    }
  };
  return {
    settle: () => {
      const next = queue.then(round, round);
      queue = next.catch(() => undefined);
      return next;
    },
  };
}

/**
 * The operations, each call followed by the stream's work: what a caller observes a moment
 * after its answer. The answer itself is returned unchanged.
 */
export function settling<T extends object>(operations: T, settle: () => Promise<unknown>): T {
  return new Proxy(operations, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        await settle();
        return result;
      };
    },
  });
}
