/**
 * Nobody can put their words into our mail ([mail.caller-text]): keyless sign-ups over real
 * HTTP, through the stream processor and the mailer as deployed, with the name, surname and a
 * profile field carrying every form of a link that mail clients turn into one. What reaches the
 * mail viewer (subject, text and HTML parts) is checked: none of the words, and nothing a mail
 * client would make a link of but the activation link itself. A sign-up with the key may greet
 * by the name the key holder gave: that control proves the check sees a name when there is one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredMail } from '../../infra/local/stand-ins/ses-local.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import {
  apiPath,
  errorShapeProblems,
  hardeningSettings,
  postJson,
  putSettings,
  type RawResponse,
  send,
} from './support/harness.ts';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
  // Many sign-ups from this one client: the per-address limit is abuse.test.ts's subject.
  putSettings(
    stack.parameters,
    hardeningSettings({ public_rate_limit: { max_requests: 10_000, window_minutes: 10 } }),
  );
});

afterAll(async () => {
  await stack?.stop();
});

/**
 * A link in the forms mail clients (and the people reading) take for one, each with a marker
 * word that must not reach any mail: a bare domain, a defanged scheme, `www.`, a look-alike IDN
 * (Cyrillic е) and its punycode, invisible characters inside a URL (zero-width space, word
 * joiner, soft hyphen, byte-order mark), full-width and ideographic dots, and `@` tricks.
 */
const PAYLOADS: readonly { readonly marker: string; readonly text: string }[] = [
  { marker: 'evilbare', text: 'Your account is locked, see evilbare.example' },
  { marker: 'evilhxxps', text: 'hxxps://evilhxxps.example/login' },
  { marker: 'evilwww', text: 'Reset at www.evilwww.example now' },
  { marker: 'xampl', text: 'Sign in at еxampl.com (Cyrillic е)' },
  { marker: 'xn--', text: 'Sign in at xn--xampl-3ve.com' },
  { marker: 'evilzw', text: 'https://evilzw\u200B.example/reset' },
  { marker: 'evilwj', text: 'https://evil\u2060wj.example/reset' },
  { marker: 'evilsh', text: 'evil\u00ADsh.example/pay' },
  { marker: 'evilbom', text: 'evil\uFEFFbom.example' },
  { marker: 'evilfw', text: 'evilfw\uFF0Eexample\uFF0Fpay' },
  { marker: 'evilid', text: 'evilid\u3002example' },
  { marker: 'evilat', text: 'https://bank.example@evilat.example/' },
  { marker: 'evilmail', text: 'write to support@evilmail.example' },
];

/** What a mail client shows, the way it would read it: compatibility forms folded, invisibles gone. */
function asRead(text: string): string {
  return text.normalize('NFKC').replace(/[\p{Cf}\u00AD]/gu, '');
}

/**
 * Everything in a mail a client could make a link of (schemes, `www.`, dotted names), but for
 * the links to this API the mail exists for.
 */
function linkLike(text: string): string[] {
  const read = asRead(text);
  const ours = new URL(stack.apiRoot).origin;
  return [
    ...(read.match(/\b[a-z][a-z0-9+.-]*:\/\/[^\s<>"]+/giu) ?? []),
    ...(read.match(/\bwww\.[^\s<>"]+/giu) ?? []),
    ...(read.match(/(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+[\p{L}]{2,}/gu) ?? []),
  ].filter((link) => !link.startsWith(ours));
}

function mailText(mail: StoredMail): string {
  return [mail.subject, mail.body.text ?? '', mail.body.html ?? ''].join('\n');
}

let count = 0;
const nextAddress = (route: string) => {
  count += 1;
  return `words-${route}-${count}@example.com`;
};

/** How each keyless route takes the words: name, surname and the profile field `city`. */
const ROUTES: Record<string, (email: string, words: string) => Promise<RawResponse>> = {
  'v1 JSON': (email, words) =>
    postJson(stack.apiRoot, '/subscribe', {
      email,
      name: words,
      surname: words,
      profile_city: words,
    }),
  'v1 form (the original plugin fields)': (email, words) =>
    send(stack.apiRoot, {
      method: 'POST',
      path: apiPath(stack.apiRoot, '/subscribe'),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        ne: email,
        nn: words,
        ns: words,
        profile_city: words,
      }).toString(),
    }),
  'v2 JSON': (email, words) =>
    send(stack.apiRoot, {
      method: 'POST',
      path: apiPath(stack.apiRoot.replace(/\/v1$/, '/v2'), '/subscriptions'),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email,
        first_name: words,
        last_name: words,
        extra_fields: [{ id: 'city', value: words }],
      }),
    }),
};

describe('[mail.caller-text] keyless sign-ups cannot put words into the activation mail', () => {
  for (const [route, signUp] of Object.entries(ROUTES)) {
    it(`${route}: every form of a link stays out of what the mail viewer shows`, async () => {
      const sent: { email: string; marker: string }[] = [];
      for (const payload of PAYLOADS) {
        const email = nextAddress(route.split(' ')[0] ?? 'x');
        const answer = await signUp(email, payload.text);
        // Refused words are fine too, as long as the refusal is a clear error.
        if (answer.status >= 400) {
          expect(answer.status).toBeLessThan(500);
          expect(errorShapeProblems(answer)).toEqual([]);
          continue;
        }
        expect(answer.status).toBeLessThan(300);
        sent.push({ email, marker: payload.marker });
      }
      expect(sent.length).toBeGreaterThan(0);
      const mails = await stack.liveSes.messages();
      for (const { email, marker } of sent) {
        const [mail, ...more] = mails.filter((each) => each.destination.to.join().includes(email));
        expect(more).toHaveLength(0);
        if (!mail) throw new Error(`no activation mail to ${email}`);
        const shown = asRead(mailText(mail)).toLowerCase();
        expect(shown, `${route}, ${marker}`).not.toContain(marker.toLowerCase());
        expect(mail.body.text).toContain('Hello there,');
        expect(linkLike(mailText(mail)), `${route}, ${marker}`).toEqual([]);
      }
    });
  }

  it('a sign-up with the key greets by the name the key holder gave: the check sees a name', async () => {
    const email = nextAddress('keyed');
    const words = 'Ada at www.keyed.example';
    const answer = await postJson(stack.apiRoot, '/subscribe', {
      email,
      name: words,
      api_key: stack.apiKey,
    });
    expect(answer.status).toBe(200);
    const mail = (await stack.liveSes.messages()).find((each) =>
      each.destination.to.join().includes(email),
    );
    expect(mail?.body.text).toContain(`Hello ${words},`);
    expect(linkLike(mailText(mail as StoredMail))).toContain('www.keyed.example');
  });
});
