import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import {
  openApiV2Document,
  openApiV2FileContent,
} from '../../../functions/http/openapi-v2-document.ts';
import { V2_CONTRACT_ENDPOINTS } from '../../support/contract.ts';

describe('the OpenAPI description of API v2', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(openApiV2Document());
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('is what docs/openapi-v2.json holds (run `npm run openapi` after changing routes or schemas)', () => {
    const committed = readFileSync(
      new URL('../../../docs/openapi-v2.json', import.meta.url),
      'utf8',
    );
    expect(committed).toBe(openApiV2FileContent());
  });

  it('describes exactly the v2 endpoints and methods of the contract, with their key needs', () => {
    const paths = openApiV2Document().paths as Record<
      string,
      Record<string, { security: Record<string, unknown>[]; description: string }>
    >;
    const described = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const contract = V2_CONTRACT_ENDPOINTS.flatMap((endpoint) =>
      Object.keys(endpoint.methods).map((method) => `${method} ${endpoint.path}`),
    );
    expect(described.sort()).toEqual(contract.sort());
    for (const endpoint of V2_CONTRACT_ENDPOINTS) {
      for (const [method, need] of Object.entries(endpoint.methods)) {
        const operation = paths[endpoint.path]?.[method.toLowerCase()];
        const anonymous = need === 'optional' || need === 'optional-write';
        // An empty requirement is OpenAPI's "no credentials needed".
        expect(operation?.security.some((each) => Object.keys(each).length === 0)).toBe(anonymous);
        expect(operation?.description).toContain(need.includes('write') ? 'write' : 'read');
      }
    }
  });
});
