/**
 * CPU time each process of the local world spent during a run: the host process (the local
 * cloud itself: the IAM-checking endpoint, the SES, SQS and parameter-store stand-ins, the
 * pollers and the Lambda host), DynamoDB Local's JVM, and each function's execution
 * environments. On 2 cores the local throughput is bounded by the CPU a mail costs all of them
 * together, so the campaign benchmark states it per mail. Read with `pidusage` (user + system
 * time per process), sampled every half second so that environments that end during the run
 * are counted up to their last sample.
 */
import pidusage from 'pidusage';

/** A process's part in the local world, e.g. "host" or a function's name. */
export type ProcessRoles = () => ReadonlyMap<number, string>;

/** CPU seconds per role between `start` and `stop`. */
export interface CpuMeter {
  stop(): Promise<Map<string, number>>;
}

export function meterCpu(roles: ProcessRoles, everyMs = 500): CpuMeter {
  // ctime (ms) per pid when first seen; 0 for a process started during the run.
  const first = new Map<number, number>();
  const last = new Map<number, { role: string; ms: number }>();
  let initial = true;
  const sample = async (): Promise<void> => {
    const current = roles();
    await Promise.all(
      [...current].map(async ([pid, role]) => {
        try {
          const { ctime } = await pidusage(pid);
          if (!first.has(pid)) first.set(pid, initial ? ctime : 0);
          last.set(pid, { role, ms: ctime });
        } catch {
          // Gone between listing and reading: its last sample stands.
        }
      }),
    );
    initial = false;
  };
  const ready = sample();
  const timer = setInterval(() => void sample(), everyMs);
  return {
    async stop() {
      await ready;
      clearInterval(timer);
      await sample();
      pidusage.clear();
      const seconds = new Map<string, number>();
      for (const [pid, { role, ms }] of last)
        seconds.set(role, (seconds.get(role) ?? 0) + (ms - (first.get(pid) ?? 0)) / 1000);
      return seconds;
    },
  };
}
