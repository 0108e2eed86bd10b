import type { ComponentChildren } from 'preact';

/**
 * A table wider than a phone scrolls sideways in this box; a scrolling region must be
 * reachable by keyboard (axe's scrollable-region-focusable), hence its tab stop.
 */
export function ScrollBox(props: { label: string; children: ComponentChildren; class?: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: keyboard users scroll it (see above)
    <section class={`scroll ${props.class ?? ''}`} tabIndex={0} aria-label={props.label}>
      {props.children}
    </section>
  );
}
