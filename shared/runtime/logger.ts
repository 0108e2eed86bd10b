/**
 * Structured logging: one JSON object per line, so CloudWatch Logs Insights and the local
 * console read the same thing. Callers pass fields explicitly; nothing here serialises a
 * request or an error wholesale, which is how keys and tokens end up in logs.
 */

/** Field values a log line may carry. */
export type LogFields = Readonly<Record<string, string | number | boolean | null | undefined>>;

/** Where log lines go; tests capture them, Lambda and the local runner print them. */
export type LogSink = (line: string) => void;

/** A structured logger. */
export interface Logger {
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

let sink: LogSink = (line) => process.stdout.write(`${line}\n`);

/** Redirects every logger's output (tests capture lines; the local runner may prefix them). */
export function setLogSink(next: LogSink): void {
  sink = next;
}

/** Describes an error for a log line: its name, message and the chain of causes. */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 4; depth += 1) {
    if (current instanceof Error) {
      parts.push(`${current.name}: ${current.message}`);
      current = current.cause;
    } else {
      parts.push(String(current));
      current = undefined;
    }
  }
  return parts.join(' <- ');
}

function write(level: string, event: string, fields: LogFields | undefined): void {
  sink(JSON.stringify({ time: new Date().toISOString(), level, event, ...fields }));
}

/** The process-wide logger. */
export const log: Logger = {
  info: (event, fields) => write('info', event, fields),
  warn: (event, fields) => write('warn', event, fields),
  error: (event, fields) => write('error', event, fields),
};
