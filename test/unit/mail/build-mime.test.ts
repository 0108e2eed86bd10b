import { describe, expect, it } from 'vitest';
import { buildMime, listId, type MimeMessage } from '../../../shared/adapters/mail/build-mime.ts';
import { renderMail } from '../../../shared/adapters/mail/render-mail.ts';
import { dueMail, HOSTILE_NAME, mailSettings, UNSUBSCRIBE_URL } from './mail-fixtures.ts';
import { headerValues, parseMime } from './parse-mime.ts';

const settings = mailSettings();

function message(overrides: Partial<MimeMessage> = {}): MimeMessage {
  return {
    sender: settings.sender,
    to: 'ada@example.com',
    subject: 'Welcome',
    text: 'Hello Ada',
    html: '<p>Hello Ada</p>',
    ...overrides,
  };
}

describe('buildMime', () => {
  it('keeps a hostile name out of every header and escaped in the HTML part', async () => {
    // Arrange
    const mail = dueMail('welcome', {
      subscriber: { ...dueMail('welcome').subscriber, name: HOSTILE_NAME },
    });
    const rendered = renderMail(mail, settings);

    // Act
    const raw = await buildMime({
      ...rendered,
      sender: settings.sender,
      to: mail.to,
      unsubscribeUrl: UNSUBSCRIBE_URL,
    });

    // Assert
    const parsed = parseMime(raw);
    const allHeaderLines = [
      ...parsed.rawHeaderLines,
      ...parsed.parts.flatMap((part) => part.rawHeaderLines),
    ];
    expect(allHeaderLines.length).toBeGreaterThan(5);
    for (const line of allHeaderLines) {
      // Random boundaries and message ids may spell "bcc"; only a Bcc header would be an injection.
      expect(line).not.toMatch(/evil@|<script|alert\(|^bcc:/i);
      // Each physical line is a `Name: value` header or a folded continuation of one.
      expect(line).toMatch(/^([!-9;-~]+:|[ \t])/);
    }
    expect(headerValues(parsed, 'bcc')).toEqual([]);
    expect(headerValues(parsed, 'to')).toEqual(['ada@example.com']);
    const html = parsed.parts[1]?.body ?? '';
    expect(html).toContain('Hello &lt;script&gt;alert(1)&lt;/script&gt; Bcc: evil@example.com,');
    expect(html).not.toContain('<script');
  });

  it('builds multipart/alternative with a UTF-8 text part first and the HTML part second', async () => {
    // Act
    const parsed = parseMime(
      await buildMime(message({ text: 'Grüße, Zoë', html: '<p>Grüße, Zoë</p>' })),
    );

    // Assert
    expect(headerValues(parsed, 'mime-version')).toEqual(['1.0']);
    expect(headerValues(parsed, 'content-type')[0]).toMatch(/^multipart\/alternative;/);
    expect(parsed.parts).toHaveLength(2);
    expect(headerValues(parsed.parts[0]!, 'content-type')).toEqual(['text/plain; charset=utf-8']);
    expect(headerValues(parsed.parts[1]!, 'content-type')).toEqual(['text/html; charset=utf-8']);
    expect(parsed.parts[0]?.body).toBe('Grüße, Zoë');
    expect(parsed.parts[1]?.body).toBe('<p>Grüße, Zoë</p>');
  });

  it('writes From from the operator settings and To as the bare address', async () => {
    // Act
    const parsed = parseMime(await buildMime(message({ subject: 'Bienvenue à bord' })));
    const quoted = parseMime(
      await buildMime(message({ sender: { address: 'news@example.com', name: 'News, Ltd' } })),
    );

    // Assert
    // The display name is quoted where RFC 5322 needs it (a comma), a plain phrase otherwise.
    expect(headerValues(parsed, 'from')).toEqual(['Example Newsletter <news@example.com>']);
    expect(headerValues(quoted, 'from')).toEqual(['"News, Ltd" <news@example.com>']);
    expect(headerValues(parsed, 'to')).toEqual(['ada@example.com']);
    // Non-ASCII subject text is MIME-encoded by MailComposer, so headers stay ASCII.
    expect(headerValues(parsed, 'subject')[0]).toMatch(/^=\?UTF-8\?Q\?.*\?=$/);
    for (const line of parsed.rawHeaderLines) {
      expect(line).toMatch(/^[\x20-\x7e\t]*$/);
    }
  });

  it('writes the bare sender address when the sender has no name', async () => {
    // Act
    const parsed = parseMime(
      await buildMime(message({ sender: { address: 'news@example.com', name: '' } })),
    );

    // Assert
    expect(headerValues(parsed, 'from')).toEqual(['news@example.com']);
  });

  it('[mail.list-id] adds List-Unsubscribe, one-click List-Unsubscribe-Post and List-Id exactly when a link is given', async () => {
    // Arrange
    const settings = mailSettings();
    const activation = dueMail('activation');
    const welcome = dueMail('welcome');

    // Act
    const withLink = parseMime(
      await buildMime({
        ...renderMail(welcome, settings),
        sender: settings.sender,
        to: welcome.to,
        unsubscribeUrl: UNSUBSCRIBE_URL,
      }),
    );
    const withoutLink = parseMime(
      await buildMime({
        ...renderMail(activation, settings),
        sender: settings.sender,
        to: activation.to,
      }),
    );

    // Assert
    expect(headerValues(withLink, 'list-unsubscribe')).toEqual([`<${UNSUBSCRIBE_URL}>`]);
    expect(headerValues(withLink, 'list-unsubscribe-post')).toEqual(['List-Unsubscribe=One-Click']);
    expect(headerValues(withLink, 'list-id')).toEqual(['"Example Newsletter" <news.example.com>']);
    expect(headerValues(withoutLink, 'list-unsubscribe')).toEqual([]);
    expect(headerValues(withoutLink, 'list-unsubscribe-post')).toEqual([]);
    expect(headerValues(withoutLink, 'list-id')).toEqual([]);
  });

  it('[mail.list-id] derives one stable, valid List-Id from any sender', () => {
    // Act
    const plain = listId({ address: 'News.Letter+weekly@Example.COM', name: '' });
    const quoted = listId({ address: 'news@example.com', name: 'The "Best" \\ News\r\nBcc: x' });
    const unicode = listId({ address: 'news@bücher.example', name: 'Bücher-Brief' });
    const symbols = listId({ address: '+++@example.com', name: 'Weekly' });

    // Assert
    expect(plain).toBe('<news-letter-weekly.example.com>');
    expect(quoted).toBe('"The Best  News Bcc: x" <news.example.com>');
    expect(unicode).toBe('=?UTF-8?Q?B=C3=BCcher-Brief?= <news.xn--bcher-kva.example>');
    expect(symbols).toBe('"Weekly" <newsletter.example.com>');
    // Every id is an RFC 2919 dot-atom between angle brackets, whatever the sender.
    for (const id of [plain, quoted, unicode, symbols])
      expect(id).toMatch(/<[a-z0-9-]+(\.[a-z0-9-]+)+>$/);
    expect(listId({ address: 'news@example.com', name: 'Example Newsletter' })).toBe(
      listId({ address: 'news@example.com', name: 'Example Newsletter' }),
    );
  });

  it('[mail.list-id] writes a non-ASCII sender name in List-Id as one encoded word on one header', async () => {
    // Act
    const parsed = parseMime(
      await buildMime(
        message({
          sender: { address: 'news@example.com', name: 'Grüße aus Köln' },
          unsubscribeUrl: UNSUBSCRIBE_URL,
        }),
      ),
    );

    // Assert
    const [header] = headerValues(parsed, 'list-id');
    expect(header).toMatch(/^=\?UTF-8\?Q\?.+\?= <news\.example\.com>$/);
    expect(parsed.rawHeaderLines.filter((line) => /^list-id:/i.test(line))).toHaveLength(1);
  });

  it('keeps a subject on one header line even when it carries CR/LF', async () => {
    // Act
    const parsed = parseMime(
      await buildMime(message({ subject: 'Hello\r\nBcc: evil@example.com' })),
    );

    // Assert
    expect(headerValues(parsed, 'bcc')).toEqual([]);
    expect(parsed.rawHeaderLines.filter((line) => /^bcc:/i.test(line))).toEqual([]);
    expect(headerValues(parsed, 'subject')).toEqual(['Hello Bcc: evil@example.com']);
  });

  it.each([
    'Evil <ada@example.com>',
    'ada@example.com, evil@example.com',
    'ada@example.com\r\nBcc: evil@example.com',
    '"ada"@example.com',
    'not-an-address',
  ])('refuses a recipient that is not a bare address: %j', async (to) => {
    await expect(buildMime(message({ to }))).rejects.toThrow(/not a bare e-mail address/);
  });

  it('refuses an unsubscribe link that is not http(s)', async () => {
    await expect(buildMime(message({ unsubscribeUrl: 'mailto:x@example.com' }))).rejects.toThrow(
      /http\(s\) URL/,
    );
  });

  it('uses CRLF line endings throughout', async () => {
    // Act
    const raw = Buffer.from(
      await buildMime(message({ text: 'one\ntwo\n\nthree', html: '<p>one<br>\ntwo</p>' })),
    ).toString('utf8');

    // Assert
    expect(raw).toContain('\r\n');
    expect(raw).not.toMatch(/[^\r]\n/);
  });
});
