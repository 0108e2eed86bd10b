import cliProgress from 'cli-progress';
import type { OutputStream } from './io.ts';

/** Values shown in a progress line besides the bar itself. */
export type ProgressPayload = Record<string, string | number>;

/** A progress display; a no-op unless the stream is a terminal. */
export interface Progress {
  update(value: number, payload?: ProgressPayload): void;
  /** Changes the total (a campaign's grows while it is planned). */
  setTotal(total: number): void;
  /** Draws the final state and ends the line. */
  stop(): void;
}

const NO_PROGRESS: Progress = {
  update: () => undefined,
  setTotal: () => undefined,
  stop: () => undefined,
};

/**
 * A progress bar on `stream` when it is a terminal; nothing otherwise, so logs and pipes get
 * only the summary the command prints at the end. Redraws are throttled by cli-progress, so
 * calling `update` per row costs nothing measurable.
 */
export function startProgress(
  stream: OutputStream,
  format: string,
  total: number,
  payload: ProgressPayload = {},
  startValue = 0,
): Progress {
  if (!stream.isTTY) return NO_PROGRESS;
  const bar = new cliProgress.SingleBar(
    {
      stream: stream as NodeJS.WritableStream,
      format,
      fps: 5,
      // Never installs signal handlers: Ctrl-C must stop an import (the checkpoint resumes it).
      gracefulExit: false,
      hideCursor: false,
      formatValue: (value, _options, type) =>
        type === 'value' || type === 'total'
          ? Number(value).toLocaleString('en-US')
          : String(value),
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, startValue, payload);
  return {
    update: (value, next) => bar.update(value, next ?? {}),
    setTotal: (value) => bar.setTotal(value),
    stop: () => {
      bar.stop();
    },
  };
}
