/** How the console shows work in progress and failures: every failure says what to do. */
import { useEffect, useRef } from 'preact/hooks';
import { messageOf, whatToDo } from '../api.ts';

/** A failure, announced to screen readers, with what to do about it. */
export function Problem(props: { error: unknown; id?: string }) {
  if (props.error === undefined) return null;
  return (
    <div class="problem" role="alert" id={props.id}>
      <p>
        <strong>{messageOf(props.error)}</strong>
      </p>
      <p>{whatToDo(props.error)}</p>
    </div>
  );
}

/** Work under way, announced politely; with `value` and `max`, how far it has come. */
export function Busy(props: { label: string; value?: number; max?: number }) {
  return (
    <p class="busy" role="status">
      {props.max === undefined ? (
        <progress aria-label={props.label} />
      ) : (
        <progress aria-label={props.label} value={props.value ?? 0} max={props.max} />
      )}{' '}
      {props.label}
    </p>
  );
}

/** A short confirmation that something was done. */
export function Done(props: { children: preact.ComponentChildren }) {
  return (
    <p class="done" role="status">
      {props.children}
    </p>
  );
}

/**
 * A question that appears after a button press (send now? delete?): focus moves into it, so a
 * keyboard or screen-reader user lands on the question rather than behind it.
 */
export function Confirm(props: { label: string; children: preact.ComponentChildren }) {
  const box = useRef<HTMLElement>(null);
  useEffect(() => box.current?.focus(), []);
  return (
    <section class="confirm" aria-label={props.label} tabIndex={-1} ref={box}>
      {props.children}
    </section>
  );
}
