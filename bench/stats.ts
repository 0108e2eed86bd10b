/** Small statistics over samples; every figure in the benchmarks goes through these. */

/** The value below which a fraction `p` (0..1) of the samples lie (nearest rank). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** The median; for an even count, the mean of the two middle samples. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? Number.NaN) + upper) / 2;
}

/** `a / b`, or NaN when `b` is not positive (a ratio to nothing says nothing). */
export function ratio(a: number, b: number): number {
  return b > 0 ? a / b : Number.NaN;
}
