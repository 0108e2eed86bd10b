import { isNewsletterError } from '../../shared/domain/errors.ts';
import { settleSubscribeRequest } from '../../shared/operations/subscribe.ts';
import { readEnvironment } from '../../shared/runtime/environment.ts';
import { tableFunction } from '../http/table-function.ts';
import { itemIdOf, streamHandler } from './stream-handler.ts';

const { runtime, deps } = tableFunction();
const { streamRetryBaseMs } = readEnvironment();

/** The table's stream, REQUEST# inserts: applies the subscribe rules to keyless requests. */
export const handler = streamHandler(
  'subscribe-requests',
  runtime,
  streamRetryBaseMs,
  async (record) => {
    const id = itemIdOf(record, 'REQUEST#');
    const outcome = await settleSubscribeRequest(deps, id);
    // An error value (contention, the links' base missing) is retried, then dead-lettered.
    if (isNewsletterError(outcome)) throw new Error(`request ${id}: ${outcome.code}`);
    return { request_id: id, outcome };
  },
);
