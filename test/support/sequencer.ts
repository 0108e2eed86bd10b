import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The folders whose files start processes (the local cloud, a synth, npm, a DynamoDB Local of
 * their own) and take tens of seconds, slowest kinds first; the unit files take well under
 * ten. Only the order of the first start depends on it, never a verdict.
 */
const SLOW_FIRST = [
  'deployed',
  'package',
  'hardening',
  'e2e',
  'cli',
  'local',
  'infra',
  'integration',
];

const folderRank = (spec: TestSpecification): number => {
  const folder = relative(spec.project.config.root, spec.moduleId).split(/[\\/]/)[1] ?? '';
  const rank = SLOW_FIRST.indexOf(folder);
  return rank === -1 ? SLOW_FIRST.length : rank;
};

/**
 * Longest files first, so that no long file starts last and runs alone on an otherwise idle
 * machine. Vitest does that from the durations it cached on the last run; a clean clone (CI)
 * has none, and vitest then starts the largest files first, which put files of a minute (the
 * CORS synth, the package build) near the end. Without a cached duration for every file, the
 * files go by folder (SLOW_FIRST), then by vitest's own order within a folder.
 */
export default class SlowFoldersFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cached = await super.sort(files);
    const known = files.every((spec) =>
      this.ctx.cache.getFileTestResults(
        `${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`,
      ),
    );
    if (known) return cached;
    // Array.prototype.sort is stable: vitest's order stays within a folder.
    return [...cached].sort((a, b) => folderRank(a) - folderRank(b));
  }
}
