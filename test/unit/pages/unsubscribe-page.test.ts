import { describe, expect, it } from 'vitest';
import { unsubscribePage } from '../../../functions/http/pages/unsubscribe-page.ts';
import { expectWellFormedPage, formOf } from './pages.ts';

describe('unsubscribePage', () => {
  it('shows an explanation and a POST form with the token and an Unsubscribe button', () => {
    // Act
    const page = unsubscribePage('cXV1eGJhemJhcmZvbw');

    // Assert
    expect(page.status).toBe(200);
    expectWellFormedPage(page, 'Unsubscribe');
    expect(formOf(page.html)).toEqual({
      method: 'post',
      token: 'cXV1eGJhemJhcmZvbw',
      button: 'Unsubscribe',
    });
    expect(page.html).toContain('stop receiving our newsletter');
  });

  it('escapes a hostile token', () => {
    // Act
    const page = unsubscribePage("' onfocus='alert(1)' x=\"<b>&");

    // Assert
    expect(page.html).not.toMatch(/<b>|onfocus='/);
    expect(formOf(page.html).token).toBe('&#39; onfocus=&#39;alert(1)&#39; x=&quot;&lt;b&gt;&amp;');
  });
});
