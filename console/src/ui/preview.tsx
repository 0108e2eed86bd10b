/**
 * An issue's HTML shown as a mail client would, at desktop or phone width: in a sandboxed
 * frame without same-origin (the markup can reach neither the console nor its
 * tokens), under the preview's own policy, receiving the HTML by postMessage.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ScrollBox } from './scroll-box.tsx';

/** The widths a preview is shown at, in CSS pixels. */
export const PREVIEW_WIDTHS = { desktop: 700, phone: 375 } as const;

export type PreviewWidth = keyof typeof PREVIEW_WIDTHS;

/** Milliseconds of quiet typing before the preview is redrawn. */
const REDRAW_AFTER_MS = 250;

export function Preview(props: { html: string }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [width, setWidth] = useState<PreviewWidth>('desktop');
  const [loads, setLoads] = useState(0);
  useEffect(() => {
    if (loads === 0) return;
    const timer = setTimeout(() => {
      // The frame's origin is opaque (sandboxed), so no narrower target origin can match it.
      frame.current?.contentWindow?.postMessage({ html: props.html }, '*');
    }, REDRAW_AFTER_MS);
    return () => clearTimeout(timer);
  }, [props.html, loads]);
  return (
    <section class="preview" aria-labelledby="preview-heading">
      <h2 id="preview-heading">Preview</h2>
      <fieldset class="inline">
        <legend>Width</legend>
        {(Object.keys(PREVIEW_WIDTHS) as PreviewWidth[]).map((name) => (
          <label key={name}>
            <input
              type="radio"
              name="preview-width"
              value={name}
              defaultChecked={name === width}
              onChange={(e) => e.currentTarget.checked && setWidth(name)}
            />{' '}
            {name === 'desktop' ? 'Desktop' : 'Phone'} ({PREVIEW_WIDTHS[name]} px)
          </label>
        ))}
      </fieldset>
      <ScrollBox label="Preview frame" class="preview-box">
        <iframe
          ref={frame}
          class={`preview-frame preview-${width}`}
          title={`Preview of the issue at ${width} width`}
          src="/preview.html"
          sandbox="allow-scripts"
          onLoad={() => setLoads((n) => n + 1)}
        />
      </ScrollBox>
    </section>
  );
}
