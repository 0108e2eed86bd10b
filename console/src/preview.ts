/**
 * The preview frame's own script (`/preview.html`): shows the HTML the console sends it, and
 * nothing of that HTML can take the frame elsewhere ([console.preview]). The frame is
 * sandboxed (scripts of this page only, no same-origin, no top navigation, no popups) under
 * PREVIEW_POLICY (no script of the runs, no form is sent, `<base>` is ignored); what
 * those leave, a `<meta http-equiv="refresh">` and a link followed inside the frame, is taken
 * out here: DOMPurify drops `<meta>`, `<base>`, scripts, event handlers, `target` and forms
 * (their fields stay), and a click on a link does nothing.
 */
import DOMPurify, { type Config } from 'dompurify';

/** Everything a mail shows is kept, its `<head>` and style blocks included. */
const KEEP_THE_MAIL = {
  WHOLE_DOCUMENT: true,
  RETURN_DOM: true,
  FORBID_TAGS: ['form'],
  FORBID_ATTR: ['action', 'formaction', 'ping'],
} satisfies Config;

function show(html: string): void {
  const clean = DOMPurify.sanitize(html, KEEP_THE_MAIL);
  document.replaceChild(document.importNode(clean, true), document.documentElement);
}

// A preview shows where a link goes (hover) but never goes there.
window.addEventListener(
  'click',
  (event) => {
    if (event.target instanceof Element && event.target.closest('a[href], area[href]'))
      event.preventDefault();
  },
  true,
);

// The console and this page talk over a port of their own: the page hands it to the console's
// origin (its own address's; the sandbox makes the document's origin opaque), and the console
// sends drafts on it, so a draft reaches this document and no other, whatever the frame holds.
const channel = new MessageChannel();
channel.port1.onmessage = (event: MessageEvent<unknown>) => {
  const data = event.data as { html?: unknown } | null;
  if (data && typeof data.html === 'string') show(data.html);
};
window.parent.postMessage({ preview: 'ready' }, new URL(window.location.href).origin, [
  channel.port2,
]);
// Should the frame be taken elsewhere all the same, the console hears so and stops.
window.addEventListener('pagehide', () => channel.port1.postMessage({ gone: true }));
