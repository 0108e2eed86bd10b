import { escapeHtml } from '../../../shared/domain/escape-html.ts';
import { type HtmlPage, htmlPage } from './html-page.ts';

/** The outcomes a link page can end in, after its POST (or a GET with a missing token). */
export type MessagePageKind =
  | 'confirmed'
  | 'already-confirmed'
  | 'unsubscribed'
  | 'link-invalid'
  | 'unavailable'
  | 'failed';

interface _Message {
  readonly status: number;
  readonly title: string;
  readonly paragraphs: readonly string[];
  readonly headers?: Readonly<Record<string, string>>;
}

const _MESSAGES: Readonly<Record<MessagePageKind, _Message>> = {
  confirmed: {
    status: 200,
    title: 'Subscription confirmed',
    paragraphs: [
      'Thank you! Your subscription is confirmed.',
      'You can unsubscribe at any time with the link at the end of our e-mails.',
    ],
  },
  // Clicking twice is normal (and mail scanners may have been first): a success, not an error.
  'already-confirmed': {
    status: 200,
    title: 'Subscription confirmed',
    paragraphs: [
      'Your subscription was already confirmed. There is nothing more to do.',
      'You can unsubscribe at any time with the link at the end of our e-mails.',
    ],
  },
  unsubscribed: {
    status: 200,
    title: 'You are unsubscribed',
    paragraphs: [
      'You will not receive our newsletter at this address any more.',
      'If this was a mistake, you can subscribe again at any time.',
    ],
  },
  'link-invalid': {
    status: 404,
    title: 'This link no longer works',
    paragraphs: [
      'The link has expired or is not known to us. Links in our e-mails only work for a limited time.',
      'To confirm a subscription, subscribe again and you will receive a new e-mail. To unsubscribe, use the link in a more recent e-mail from us.',
    ],
  },
  unavailable: {
    status: 503,
    title: 'Please try again',
    paragraphs: [
      'We could not complete your request just now because a service we depend on is not available.',
      'Please try again in a few minutes by opening the link in the e-mail again.',
    ],
    headers: { 'Retry-After': '120' },
  },
  failed: {
    status: 500,
    title: 'Something went wrong',
    paragraphs: [
      'An unexpected error stopped us from completing your request.',
      'Please try again later by opening the link in the e-mail again.',
    ],
  },
};

/** Options of a message page. */
export interface MessagePageOptions {
  /** Shown on the `failed` page so a person can quote it; escaped. */
  readonly requestId?: string;
}

/**
 * The result page of a link: `confirmed` / `already-confirmed` / `unsubscribed` (200),
 * `link-invalid` (404, expired or unknown token), `unavailable` (503 with `Retry-After`,
 * a dependency is down), `failed` (500, unexpected). The texts say nothing about the
 * subscriber, so they reveal nothing to whoever holds a link.
 */
export function messagePage(kind: MessagePageKind, options: MessagePageOptions = {}): HtmlPage {
  const message = _MESSAGES[kind];
  const paragraphs = message.paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`);
  if (kind === 'failed' && options.requestId) {
    paragraphs.push(`<p class="reference">Reference: ${escapeHtml(options.requestId)}</p>`);
  }
  return htmlPage(message.status, message.title, paragraphs.join('\n'), message.headers);
}
