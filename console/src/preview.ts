/**
 * The preview frame's own script (`/preview.html`): shows the HTML the console posts. It
 * accepts messages from its parent only; the scripts and inline handlers never run
 * (the preview's policy allows scripts of this origin alone, and parsed scripts are inert).
 */
window.addEventListener('message', (event: MessageEvent<unknown>) => {
  if (event.source !== window.parent) return;
  const data = event.data as { html?: unknown } | null;
  if (!data || typeof data.html !== 'string') return;
  const parsed = new DOMParser().parseFromString(data.html, 'text/html');
  document.replaceChild(
    document.importNode(parsed.documentElement, true),
    document.documentElement,
  );
});
