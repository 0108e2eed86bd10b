import { SesMailer } from '../../shared/adapters/mail/ses-mailer.ts';
import { deliverMail } from '../../shared/operations/deliver-mail.ts';
import { readConfigurationSet, readEnvironment } from '../../shared/runtime/environment.ts';
import { sesClient } from '../../shared/runtime/ses-client.ts';
import { tableFunction } from '../http/table-function.ts';
import { itemIdOf, streamHandler } from './stream-handler.ts';

const { runtime, deps } = tableFunction();
// Every send names the configuration set, so SES reports bounces and complaints back.
const mailer = new SesMailer(sesClient(), { configurationSetName: readConfigurationSet() });
const { streamRetryBaseMs } = readEnvironment();

/**
 * The table's stream, OUTBOX# mails queued (or requeued by an operator): sends each through
 * SES. A failed send is retried by the event source mapping after a doubling wait, then
 * dead-lettered (docs/behaviour.md, [subscribe.mail-failure]).
 */
export const handler = streamHandler('mailer', runtime, streamRetryBaseMs, async (record) => {
  const id = itemIdOf(record, 'OUTBOX#');
  return { mail_id: id, outcome: await deliverMail({ ...deps, mailer }, id) };
});
