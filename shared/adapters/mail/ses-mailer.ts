import { type SESClient, SendRawEmailCommand } from '@aws-sdk/client-ses';
import type { Settings } from '../../domain/settings-schema.ts';
import { buildMime } from './build-mime.ts';
import type { DueMail, MailPort } from './mail-port.ts';
import { renderMail } from './render-mail.ts';

/**
 * SES refused the message or could not be reached. The domain answers it with a 503 (the
 * subscriber stays stored, a retry resends); any other error out of `send` is a bug.
 */
export class MailDeliveryError extends Error {
  override readonly name = 'MailDeliveryError';

  constructor(message: string, options: { readonly cause: unknown }) {
    super(message, options);
  }
}

/** How the mailer sends besides the message itself. */
export interface SesMailerOptions {
  /**
   * The SES configuration set every send names: its event destination reports bounces,
   * complaints and deliveries back (the feedback function). Without one, SES reports nothing.
   */
  readonly configurationSetName?: string;
}

/** The mail port on Amazon SES: renders the operator's texts, builds MIME, sends it raw. */
export class SesMailer implements MailPort {
  readonly #client: SESClient;
  readonly #configurationSetName: string | undefined;

  /** @param client created once per function at module scope, or a local/mocked one. */
  constructor(client: SESClient, options: SesMailerOptions = {}) {
    this.#client = client;
    this.#configurationSetName = options.configurationSetName;
  }

  /**
   * Sends one due mail from `settings.sender.address` to `mail.to`.
   *
   * @throws MailDeliveryError (with `cause`) when SES fails; rendering or MIME errors are
   *   thrown as they are, since they are bugs rather than delivery failures.
   */
  async send(mail: DueMail, settings: Settings): Promise<void> {
    const rendered = renderMail(mail, settings);
    const raw = await buildMime({
      ...rendered,
      sender: settings.sender,
      to: mail.to,
      ...(mail.unsubscribeUrl ? { unsubscribeUrl: mail.unsubscribeUrl } : {}),
    });
    const command = new SendRawEmailCommand({
      Source: settings.sender.address,
      Destinations: [mail.to],
      RawMessage: { Data: raw },
      ...(this.#configurationSetName ? { ConfigurationSetName: this.#configurationSetName } : {}),
    });
    try {
      await this.#client.send(command);
    } catch (error) {
      // The error name only: SES messages can quote the recipient, and the message is logged.
      const reason = error instanceof Error ? error.name : typeof error;
      throw new MailDeliveryError(`SES did not accept the ${mail.kind} mail (${reason})`, {
        cause: error,
      });
    }
  }
}
