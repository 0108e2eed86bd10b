import { escapeHtml } from '../../../shared/domain/escape-html.ts';

/**
 * The form of a link page: POST with the token in a hidden field and one submit button.
 * It has no `action`, so it posts to the page's own URL (query string included) and keeps
 * working under any stage prefix or custom domain.
 *
 * @param token as it came in the link; escaped here.
 * @param buttonLabel plain text, escaped here; the button's visible and accessible name.
 */
export function tokenForm(token: string, buttonLabel: string): string {
  return `<form method="post">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<button type="submit">${escapeHtml(buttonLabel)}</button>
</form>`;
}
