/**
 * How a failed SES call counts for a campaign (shared/adapters/mail/ses-campaign-mailer.ts):
 * the daily quota apart from the rate, refusals about the account or the sender apart from
 * those about a recipient, and calls whose outcome is unknown apart from SES being away.
 */
import { describe, expect, it } from 'vitest';
import { classifySesFailure } from '../../../shared/adapters/mail/ses-campaign-mailer.ts';

/** An SDK error as the SES client throws it: its name, message and HTTP status. */
function sesError(name: string, message: string, status?: number): Error {
  return Object.assign(new Error(message), {
    name,
    ...(status === undefined ? {} : { $metadata: { httpStatusCode: status } }),
  });
}

describe('[campaign.quota] the daily quota and the rate share an error name; the message tells them apart', () => {
  it.each([
    [sesError('Throttling', 'Daily message quota exceeded.', 400), 'quota'],
    [sesError('Throttling', 'Maximum sending rate exceeded.', 400), 'throttled'],
    [sesError('TooManyRequestsException', 'Too many requests', 429), 'throttled'],
  ])('%s is %s', (error, failure) => {
    expect(classifySesFailure(error)).toEqual({ failure });
  });
});

describe('[campaign.account-refusal] refusals about the account or the sender name what was refused', () => {
  it.each([
    [sesError('AccountSendingPausedException', 'Account sending paused', 400), 'account_paused'],
    [
      sesError('ConfigurationSetDoesNotExist', 'Configuration set <x> does not exist.', 400),
      'configuration_set',
    ],
    [sesError('ConfigurationSetSendingPausedException', 'paused', 400), 'account_paused'],
    [sesError('MailFromDomainNotVerifiedException', 'not verified', 400), 'sender_unverified'],
    [
      sesError(
        'MessageRejected',
        'Email address is not verified. The following identities failed the check in region EU-WEST-1: news@example.com',
        400,
      ),
      'sender_unverified',
    ],
    [
      sesError(
        'MessageRejected',
        'Sending suspended for this account. For more information, please check the inbox of the email address associated with your AWS account.',
        400,
      ),
      'account_suspended',
    ],
    [
      sesError('AccessDeniedException', 'not authorized to perform ses:SendRawEmail', 403),
      'access_denied',
    ],
    [
      sesError(
        'InvalidClientTokenId',
        'The security token included in the request is invalid.',
        403,
      ),
      'access_denied',
    ],
  ])('%s is %s', (error, refusal) => {
    expect(classifySesFailure(error, 'ada@example.org')).toEqual({ failure: 'account', refusal });
  });

  it('an unverified recipient in the sandbox is the account’s state, not the person’s', () => {
    const error = sesError(
      'MessageRejected',
      'Email address is not verified. The following identities failed the check in region EU-WEST-1: Ada@Example.org',
      400,
    );
    expect(classifySesFailure(error, 'ada@example.org')).toEqual({
      failure: 'account',
      refusal: 'sandbox',
    });
  });

  it('a refusal of the recipient’s address fails that recipient', () => {
    expect(classifySesFailure(sesError('MessageRejected', 'Address blacklisted.', 400))).toEqual({
      failure: 'rejected',
    });
    expect(
      classifySesFailure(sesError('InvalidParameterValue', "Missing final '@domain'", 400)),
    ).toEqual({ failure: 'rejected' });
  });
});

describe('[campaign.unknown-outcome] a call sent without an answer may have been taken', () => {
  it('a timeout or a reset after sending is unknown; a refused connection or a 5xx is SES away', () => {
    const unknown = { failure: 'unknown' };
    const away = { failure: 'unavailable' };
    expect(
      classifySesFailure(
        sesError('TimeoutError', 'a request has exceeded the configured 3000 ms requestTimeout.'),
      ),
    ).toEqual(unknown);
    expect(classifySesFailure(sesError('Error', 'read ECONNRESET'))).toEqual(unknown);
    expect(
      classifySesFailure(
        sesError(
          'TimeoutError',
          'the request socket did not establish a connection with the server within the configured timeout of 1000 ms.',
        ),
      ),
    ).toEqual(away);
    expect(classifySesFailure(sesError('Error', 'connect ECONNREFUSED 127.0.0.1:1'))).toEqual(away);
    expect(classifySesFailure(sesError('ServiceUnavailable', 'down', 503))).toEqual(away);
    expect(classifySesFailure('not an error')).toEqual(away);
  });
});
