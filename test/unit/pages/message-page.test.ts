import { describe, expect, it } from 'vitest';
import { type MessagePageKind, messagePage } from '../../../functions/http/pages/message-page.ts';
import { expectWellFormedPage } from './pages.ts';

describe('messagePage', () => {
  it.each<[MessagePageKind, number, string]>([
    ['confirmed', 200, 'Subscription confirmed'],
    ['already-confirmed', 200, 'Subscription confirmed'],
    ['unsubscribed', 200, 'You are unsubscribed'],
    ['link-invalid', 404, 'This link no longer works'],
    ['unavailable', 503, 'Please try again'],
    ['failed', 500, 'Something went wrong'],
  ])('renders %s with status %i and title %j', (kind, status, title) => {
    // Act
    const page = messagePage(kind);

    // Assert
    expect(page.status).toBe(status);
    expectWellFormedPage(page, title);
    expect(page.html).not.toContain('<form');
  });

  it('treats a second confirmation as a success that says so', () => {
    // Act
    const page = messagePage('already-confirmed');

    // Assert
    expect(page.status).toBe(200);
    expect(page.html).toContain('already confirmed');
    expect(page.html).not.toMatch(/error|expired|try again/i);
  });

  it('asks to try again later on 503 and tells clients when', () => {
    // Act
    const page = messagePage('unavailable');

    // Assert
    expect(page.headers['Retry-After']).toBe('120');
    expect(page.html).toContain('try again in a few minutes');
  });

  it('explains an expired or unknown link kindly', () => {
    // Act
    const page = messagePage('link-invalid');

    // Assert
    expect(page.status).toBe(404);
    expect(page.html).toContain('expired or is not known');
    expect(page.headers['Retry-After']).toBeUndefined();
  });

  it('shows an escaped request id on the failure page only', () => {
    // Act
    const failed = messagePage('failed', { requestId: '<b>req-1</b>' });
    const confirmed = messagePage('confirmed', { requestId: 'req-2' });

    // Assert
    expect(failed.html).toContain('Reference: &lt;b&gt;req-1&lt;/b&gt;');
    expect(failed.html).not.toContain('<b>');
    expect(confirmed.html).not.toContain('req-2');
  });
});
