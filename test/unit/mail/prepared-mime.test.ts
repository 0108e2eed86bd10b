/** Campaign MIME from prepared pieces: what buildMime builds, with the fixed parts encoded once. */
import fc from 'fast-check';
import MailComposer from 'nodemailer/lib/mail-composer';
import { describe, expect, it } from 'vitest';
import { buildMime } from '../../../shared/adapters/mail/build-mime.ts';
import {
  multipartMessage,
  type PiecesMessage,
  PreparedMime,
} from '../../../shared/adapters/mail/prepared-mime.ts';
import { prepareCampaign } from '../../../shared/domain/campaign/prepared-campaign.ts';
import type { CampaignRecipientValues } from '../../../shared/domain/campaign/render-campaign.ts';
import { realisticHtml } from '../../support/realistic-issue.ts';
import { UNSUBSCRIBE_URL, WEB_VERSION_URL } from '../campaign/campaign-fixtures.ts';
import { headerValues, type ParsedMessage, parseMime } from './parse-mime.ts';

const SENDER = { address: 'news@example.com', name: 'Example News' };

/** Headers that differ between any two messages: random or timed by MailComposer. */
const PER_MESSAGE = new Set(['message-id', 'date']);

/** A parsed message without what is random per message, its boundary included. */
function comparable(message: ParsedMessage) {
  const boundary = /boundary="?([^";]+)"?/.exec(headerValues(message, 'content-type')[0] ?? '');
  return {
    headers: message.headers
      .filter(([name]) => !PER_MESSAGE.has(name))
      .map(([name, value]) => [name, value.replace(boundary?.[1] ?? '', 'BOUNDARY')]),
    // nodemailer picks quoted-printable or base64 by the share of non-Latin characters, here
    // from the fixed pieces alone: near the line the two builds may differ, and decode alike
    // but for line breaks (CRLF in quoted-printable, as written in base64).
    parts: message.parts.map((part) => ({
      headers: part.headers.filter(([name]) => name !== 'content-transfer-encoding'),
      body: part.body.replace(/\r\n/g, '\n'),
    })),
  };
}

/** Both builds of one recipient's mail, parsed, and the raw prepared one. */
async function bothBuilds(
  prepared: PreparedMime,
  message: PiecesMessage,
  html: string,
  text: string,
) {
  const raw = prepared.build(message).toString('utf8');
  const expected = await buildMime({ ...message, html, text });
  return { raw, actual: parseMime(raw), expected: parseMime(expected) };
}

const value = fc.oneof(
  fc.constantFrom('', 'Ada', 'Zoë', '=3D', 'a  ', '\t', 'x'.repeat(200), '日本語の名前', '--x'),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
);
const recipient: fc.Arbitrary<CampaignRecipientValues> = fc.record({
  email: fc.constant('ada@example.com'),
  name: value,
  surname: value,
  profile: fc.record({ city: value }),
});
const part = fc
  .array(
    fc.constantFrom(
      '{name}',
      '{surname}',
      '{profile_city}',
      '{unsubscription_url}',
      ' ',
      '\n',
      ' \n',
      '\t',
      'Grüße ',
      'word ',
      '=',
      '.',
      'x'.repeat(90),
      '日本語のニュースレター、今月の話題。',
      '<p>',
      '</p>',
      '<a href="https://example.org/a?b=1&amp;c=2">link</a>',
    ),
    { maxLength: 40 },
  )
  .map((pieces) => pieces.join(''));

describe('[campaign.render] campaign MIME from prepared pieces', () => {
  it('joins a multipart node byte for byte as nodemailer streams it', async () => {
    // Arrange
    const children = [
      'Content-Type: text/plain\r\n\r\nplain',
      'Content-Type: text/html\r\n\r\n<p>x</p>',
    ];
    const root = new MailComposer({
      from: 'news@example.com',
      to: 'ada@example.com',
      subject: 'S',
      alternatives: children.map((raw) => ({ raw })),
      newline: 'windows',
    }).compile();

    // Act
    const joined = multipartMessage(root, children);

    // Assert
    expect(joined).toBe((await root.build()).toString('utf8'));
  });

  it('decodes to what buildMime builds, headers and parts, for any parts and values', async () => {
    await fc.assert(
      fc.asyncProperty(
        part,
        part,
        fc.array(recipient, { minLength: 1, maxLength: 3 }),
        async (html, text, people) => {
          // Arrange: one preparation, several recipients, as a chunk sends them
          const campaign = prepareCampaign(
            { subject: 'Grüße aus Köln', html, text },
            { webVersionUrl: WEB_VERSION_URL },
          );
          const prepared = new PreparedMime();

          for (const person of people) {
            // Act
            const mail = campaign.render(person, UNSUBSCRIBE_URL);
            const built = await bothBuilds(
              prepared,
              {
                sender: SENDER,
                to: 'ada@example.com',
                subject: mail.subject,
                unsubscribeUrl: UNSUBSCRIBE_URL,
                pieces: mail.pieces,
              },
              mail.html,
              mail.text,
            );

            // Assert
            expect(comparable(built.actual)).toEqual(comparable(built.expected));
            for (const line of built.raw.split('\r\n'))
              expect(line.length).toBeLessThanOrEqual(998);
            const bodyLines = built.raw.slice(built.raw.indexOf('\r\n\r\n')).split('\r\n');
            // Quoted-printable and base64 lines stay within 76 characters (RFC 2045).
            for (const line of bodyLines) expect(line.length).toBeLessThanOrEqual(76);
            expect(built.raw).not.toMatch(/[^\r]\n|\r[^\n]/);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('encodes a realistic issue as buildMime does, its fixed pieces once for many mails', async () => {
    // Arrange
    const text = 'Hello {name},\n\nthe November issue.\n\nSent to {email}.';
    const campaign = prepareCampaign({ subject: 'November news', html: realisticHtml(), text });
    const prepared = new PreparedMime();
    const people = ['Ada', '', 'Zoë', '日本'].map((name) => ({
      email: 'ada@example.com',
      name,
      surname: 'Lovelace',
      profile: { city: 'Lyon' },
    }));

    for (const person of people) {
      // Act
      const mail = campaign.render(person, UNSUBSCRIBE_URL);
      const built = await bothBuilds(
        prepared,
        { sender: SENDER, to: 'ada@example.com', subject: mail.subject, pieces: mail.pieces },
        mail.html,
        mail.text,
      );

      // Assert
      expect(comparable(built.actual)).toEqual(comparable(built.expected));
      expect(
        headerValues(built.actual.parts[1] as ParsedMessage, 'content-transfer-encoding'),
      ).toEqual(['quoted-printable']);
    }
  });

  it('keeps the checks of buildMime: a recipient that is not a bare address is refused', () => {
    const mail = prepareCampaign({ subject: 'S', html: '<p>x</p>', text: 'x' }).render(
      { email: 'a@example.com', name: '', surname: '', profile: {} },
      UNSUBSCRIBE_URL,
    );
    expect(() =>
      new PreparedMime().build({
        sender: SENDER,
        to: 'ada@example.com, evil@example.com',
        subject: mail.subject,
        pieces: mail.pieces,
      }),
    ).toThrow(/not a bare e-mail address/);
  });
});
