/**
 * An issue's HTML shown as a mail client would, at desktop or phone width: in a sandboxed
 * frame without same-origin (the markup can reach neither the console nor its
 * tokens), under the preview's own policy. Drafts go over the port the frame's page hands the
 * console when it starts ([console.preview]): never by `postMessage` to the frame's window,
 * which would reach whatever document the frame holds by then.
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
  const [port, setPort] = useState<MessagePort | undefined>(undefined);
  // Each frame element takes one port, from the first page it loads: the preview's own (no
  // draft has reached the frame before it).
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let taken = false;
    const listen = (event: MessageEvent) => {
      const offered = event.ports[0];
      if (taken || !offered || event.source !== frame.current?.contentWindow) return;
      taken = true;
      offered.onmessage = (said: MessageEvent<unknown>) => {
        // The preview's page is leaving the frame: something in a draft took it elsewhere.
        // It gets no more drafts, and a new frame takes its place.
        if ((said.data as { gone?: unknown } | null)?.gone !== true) return;
        offered.close();
        setPort(undefined);
        setGeneration((n) => n + 1);
      };
      setPort(offered);
    };
    window.addEventListener('message', listen);
    return () => window.removeEventListener('message', listen);
  }, [generation]);
  useEffect(() => () => port?.close(), [port]);
  useEffect(() => {
    if (!port) return;
    const timer = setTimeout(() => port.postMessage({ html: props.html }), REDRAW_AFTER_MS);
    return () => clearTimeout(timer);
  }, [props.html, port]);
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
          key={generation}
          ref={frame}
          class={`preview-frame preview-${width}`}
          title={`Preview of the issue at ${width} width`}
          src="/preview.html"
          sandbox="allow-scripts"
        />
      </ScrollBox>
    </section>
  );
}
