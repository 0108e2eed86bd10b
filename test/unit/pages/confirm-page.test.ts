import { describe, expect, it } from 'vitest';
import { confirmPage } from '../../../functions/http/pages/confirm-page.ts';
import { expectWellFormedPage, formOf } from './pages.ts';

describe('confirmPage', () => {
  it('shows an explanation and a POST form with the token and a labelled button', () => {
    // Act
    const page = confirmPage('Zm9vYmFyYmF6cXV4cXV1eA');

    // Assert
    expect(page.status).toBe(200);
    expectWellFormedPage(page, 'Confirm your subscription');
    expect(formOf(page.html)).toEqual({
      method: 'post',
      token: 'Zm9vYmFyYmF6cXV4cXV1eA',
      button: 'Confirm my subscription',
    });
    expect(page.html).toContain('nothing will happen');
  });

  it('posts to its own URL rather than to an address of its own making', () => {
    // Act
    const { html } = confirmPage('t');

    // Assert
    expect(html).toContain('<form method="post">');
    expect(html).not.toContain('action=');
  });

  it('escapes a hostile token', () => {
    // Act
    const page = confirmPage('"><script>alert(1)</script><input value="');

    // Assert
    expect(page.html).not.toContain('<script');
    expect(formOf(page.html).token).toBe(
      '&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;input value=&quot;',
    );
    expect(page.html.match(/<input /g)).toHaveLength(1);
  });
});
