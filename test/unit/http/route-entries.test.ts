/**
 * Each function reads its own route table entry (functions/route-table/<name>.ts) and no
 * other, so it bundles no other route's entry; a handler that imported another route's entry
 * would answer with that route's methods and key policies.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeTable } from '../../../functions/route-table.ts';

const FUNCTIONS = join(import.meta.dirname, '..', '..', '..', 'functions');

describe('route entries', () => {
  it('every entry file holds the route of its own name', async () => {
    const misnamed: string[] = [];
    for (const route of routeTable) {
      const file = (await import(join(FUNCTIONS, 'route-table', `${route.name}.ts`))) as {
        route: { name: string };
      };
      if (file.route !== route) misnamed.push(`${route.name}: holds ${file.route.name}`);
    }
    expect(misnamed).toEqual([]);
  });

  it("every handler module imports its own route's entry and no other", () => {
    const wrong: string[] = [];
    for (const route of routeTable) {
      const source = readFileSync(join(FUNCTIONS, `${route.name}.ts`), 'utf8');
      const imported = [...source.matchAll(/from '\.\/route-table\/([\w-]+)\.ts'/g)].map(
        (match) => match[1],
      );
      if (imported.length !== 1 || imported[0] !== route.name) {
        wrong.push(`${route.name}: imports ${imported.join(', ') || 'no entry'}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
