/**
 * The rule → test index: every rule in docs/behaviour.md carries an id (`**[params.null]**`),
 * and at least one test names it (in its title, `[params.null] …`). A rule without a test, or
 * a test naming a rule that does not exist, fails the run. The index is printed, so a reader
 * finds the tests of any rule.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const RULE_ID = /^- \*\*\[([a-z][a-z0-9-]+\.[a-z][a-z0-9.-]+)\]\*\*/gm;
// A test title (`'[params.null] …`) or a comment (`// [params.null] …`) names a rule.
const NAMED = /(?:['"`]|\/\/ )\[([a-z][a-z0-9-]+\.[a-z][a-z0-9.-]+)\]/g;

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return /\.test\.ts$/.test(name) && !path.endsWith('rule-index.test.ts') ? [path] : [];
  });
}

it('every rule of docs/behaviour.md has a test that names it, and every named rule exists', () => {
  const behaviour = readFileSync(join(ROOT, 'docs', 'behaviour.md'), 'utf8');
  const rules = [...behaviour.matchAll(RULE_ID)].map((match) => match[1] as string);
  expect(rules.length).toBeGreaterThan(20);
  expect(new Set(rules).size).toBe(rules.length);

  const index = new Map<string, string[]>(rules.map((rule) => [rule, []]));
  const unknown: string[] = [];
  for (const file of testFiles(join(ROOT, 'test'))) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(NAMED)) {
      const id = match[1] as string;
      const where = relative(ROOT, file);
      const tests = index.get(id);
      if (tests) {
        if (!tests.includes(where)) tests.push(where);
      } else {
        unknown.push(`${where}: [${id}]`);
      }
    }
  }
  const untested = [...index].filter(([, files]) => files.length === 0).map(([rule]) => rule);
  console.log(
    `[rules] ${rules.length} rules in docs/behaviour.md:\n${[...index]
      .map(([rule, files]) => `  ${rule}: ${files.join(', ') || 'NO TEST'}`)
      .join('\n')}`,
  );
  expect(untested).toEqual([]);
  expect(unknown).toEqual([]);
});
