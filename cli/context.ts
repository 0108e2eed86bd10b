import type { Services } from './connection/services.ts';
import type { CliIo } from './io.ts';

/** What every command's action gets: the streams, the run's services and its exit code. */
export interface CliContext {
  readonly io: CliIo;
  /** The run's AWS clients and names, resolved from the global options on first use. */
  services(): Promise<Services>;
  /** Set by an action that finished but must report failure (e.g. rejected import rows). */
  exitCode: number;
}
