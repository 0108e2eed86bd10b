import { describe, expect, it } from 'vitest';
import { renderMail } from '../../../shared/adapters/mail/render-mail.ts';
import {
  CONFIRM_URL,
  dueMail,
  HOSTILE_NAME,
  mailSettings,
  UNSUBSCRIBE_URL,
} from './mail-fixtures.ts';

function withTexts(texts: Partial<ReturnType<typeof mailSettings>['texts']>) {
  const settings = mailSettings();
  return mailSettings({ texts: { ...settings.texts, ...texts } });
}

describe('renderMail', () => {
  it('renders the default activation mail with the confirm link', () => {
    // Arrange
    const mail = dueMail('activation');

    // Act
    const rendered = renderMail(mail, mailSettings());

    // Assert
    expect(rendered.subject).toBe('Please confirm your subscription');
    expect(rendered.text).toContain('Hello Ada,');
    expect(rendered.text).toContain(`\n${CONFIRM_URL}\n`);
    expect(rendered.html).toContain(`<a href="${CONFIRM_URL}"`);
    expect(rendered.html).toContain(`>${CONFIRM_URL}</a>`);
  });

  it('substitutes every placeholder in the text part with the raw values', () => {
    // Arrange
    const settings = withTexts({
      welcome: {
        subject: 'Hi',
        body: '{name}|{surname}|{email}|{confirm_url}|{unsubscribe_url}|{lists}|{unknown}',
      },
    });
    const mail = dueMail('welcome', { confirmUrl: CONFIRM_URL });

    // Act
    const { text } = renderMail(mail, settings);

    // Assert
    expect(text).toBe(
      `Ada|Lovelace|ada@example.com|${CONFIRM_URL}|${UNSUBSCRIBE_URL}|News, Tips & Tricks|{unknown}`,
    );
  });

  it('substitutes in one pass, so a value that looks like a placeholder stays literal', () => {
    // Arrange
    const mail = dueMail('activation', {
      subscriber: { ...dueMail('activation').subscriber, name: '{confirm_url}' },
    });

    // Act
    const { text } = renderMail(mail, mailSettings());

    // Assert
    expect(text).toContain('Hello {confirm_url},');
  });

  it('[mail.empty-name] greets a subscriber without a name as "there" but leaves the admin mail field empty', () => {
    // Arrange
    const nameless = { ...dueMail('welcome').subscriber, name: '' };

    // Act
    const welcome = renderMail(dueMail('welcome', { subscriber: nameless }), mailSettings());
    const admin = renderMail(dueMail('admin', { subscriber: nameless }), mailSettings());

    // Assert
    expect(welcome.text.startsWith('Hello there,')).toBe(true);
    expect(welcome.html).toContain('Hello there,');
    expect(admin.text).toContain('Name:  Lovelace');
    expect(admin.text).not.toContain('there');
  });

  it('escapes a hostile name in the HTML part and keeps it on one line in the text part', () => {
    // Arrange
    const mail = dueMail('welcome', {
      subscriber: { ...dueMail('welcome').subscriber, name: HOSTILE_NAME },
    });

    // Act
    const { text, html, subject } = renderMail(mail, mailSettings());

    // Assert
    expect(html).toContain('Hello &lt;script&gt;alert(1)&lt;/script&gt; Bcc: evil@example.com,');
    expect(html).not.toContain('<script');
    expect(text.split('\n')[0]).toBe('Hello <script>alert(1)</script> Bcc: evil@example.com,');
    expect(text).not.toMatch(/\r|\nBcc/);
    expect(subject).toBe('Welcome to our newsletter');
  });

  it('escapes the operator text and list names in the HTML part', () => {
    // Arrange
    const settings = withTexts({
      admin: { subject: 'New', body: 'Tom & Jerry <b>"quoted"</b>\nLists: {lists}' },
    });

    // Act
    const { html } = renderMail(dueMail('admin'), settings);

    // Assert
    expect(html).toContain(
      'Tom &amp; Jerry &lt;b&gt;&quot;quoted&quot;&lt;/b&gt;<br>\nLists: News, Tips &amp; Tricks',
    );
  });

  it('[mail.subject-operator-only] never puts user text, lists or links into the subject', () => {
    // Arrange
    const settings = withTexts({
      welcome: {
        subject: 'Welcome {name} {surname} <{email}> to {lists} {unsubscribe_url}!\r\nBcc: x@y.z',
        body: 'Hi',
      },
      activation: { subject: '{name}{confirm_url}', body: 'Hi {confirm_url}' },
    });
    const hostile = { ...dueMail('welcome').subscriber, name: HOSTILE_NAME };

    // Act
    const welcome = renderMail(dueMail('welcome', { subscriber: hostile }), settings);
    const activation = renderMail(dueMail('activation', { subscriber: hostile }), settings);

    // Assert
    expect(welcome.subject).toBe('Welcome <> to ! Bcc: x@y.z');
    expect(welcome.subject).not.toMatch(/[\r\n]|Ada|Lovelace|example\.com|News|script/);
    expect(activation.subject).toBe('Please confirm your subscription');
  });

  it('makes paragraphs from blank-line-separated blocks and <br> from single line breaks', () => {
    // Arrange
    const settings = withTexts({
      welcome: {
        subject: 'Hi',
        body: 'Line one\r\nLine two\n\n \nSecond block\n\n\n{unsubscribe_url}',
      },
    });

    // Act
    const { html, text } = renderMail(dueMail('welcome'), settings);

    // Assert
    const paragraphs = html.match(/<p[^>]*>[\s\S]*?<\/p>/g) ?? [];
    expect(paragraphs).toHaveLength(3);
    expect(paragraphs[0]).toMatch(/>Line one<br>\nLine two<\/p>$/);
    expect(paragraphs[1]).toMatch(/>Second block<\/p>$/);
    expect(paragraphs[2]).toContain(`<a href="${UNSUBSCRIBE_URL}"`);
    expect(text).toBe(`Line one\nLine two\n\nSecond block\n\n${UNSUBSCRIBE_URL}`);
  });

  it('escapes a link for its attribute and refuses a link that is not http(s)', () => {
    // Arrange
    const tricky = dueMail('activation', {
      confirmUrl: 'https://api.example.com/confirm?token=a"b<c>&next=1',
    });
    const script = dueMail('activation', { confirmUrl: 'javascript:alert(1)' });

    // Act
    const { html } = renderMail(tricky, mailSettings());

    // Assert
    expect(html).toContain(
      '<a href="https://api.example.com/confirm?token=a%22b%3Cc%3E&amp;next=1" style=',
    );
    expect(html).not.toContain('a"b');
    expect(() => renderMail(script, mailSettings())).toThrow(/http\(s\) URL/);
  });

  it('appends the link when the operator text lacks its placeholder', () => {
    // Arrange
    const settings = withTexts({
      welcome: { subject: 'Hi', body: 'Welcome!' },
      activation: { subject: 'Confirm', body: 'Please confirm.' },
    });

    // Act
    const welcome = renderMail(dueMail('welcome'), settings);
    const activation = renderMail(dueMail('activation'), settings);

    // Assert
    expect(welcome.text).toBe(`Welcome!\n\nUnsubscribe: ${UNSUBSCRIBE_URL}`);
    expect(activation.text).toBe(`Please confirm.\n\n${CONFIRM_URL}`);
    expect(activation.html).toContain(`<a href="${CONFIRM_URL}"`);
  });

  it('renders a link the mail does not have as nothing', () => {
    // Arrange
    const settings = withTexts({
      activation: { subject: 'Hi', body: 'A{unsubscribe_url}B {confirm_url}' },
    });

    // Act
    const { text, html } = renderMail(dueMail('activation'), settings);

    // Assert
    expect(text).toBe(`AB ${CONFIRM_URL}`);
    expect(html).toContain('>AB <a href=');
  });

  it('produces a complete small HTML document with inline styles and no external asset', () => {
    // Act
    const { html, subject } = renderMail(dueMail('welcome'), mailSettings());

    // Assert
    expect(html.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toContain(`<title>${subject}</title>`);
    expect(html.trimEnd().endsWith('</html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|<style|<img|src=/i);
    expect(html.match(/href="([^"]*)"/g)).toEqual([`href="${UNSUBSCRIBE_URL}"`]);
  });
});
