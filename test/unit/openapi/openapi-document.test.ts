import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { openApiDocument, openApiFileContent } from '../../../functions/http/openapi-document.ts';
import { CONTRACT_ENDPOINTS } from '../../support/contract.ts';

type Operation = {
  requestBody?: {
    content: Record<string, { schema: { required?: string[]; properties?: object } }>;
  };
};

describe('the OpenAPI description', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(openApiDocument());
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is what docs/openapi.json holds (run `npm run openapi` after changing routes or schemas)', () => {
    const committed = readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8');
    expect(committed).toBe(openApiFileContent());
  });

  it('describes exactly the endpoints and methods of the contract', () => {
    const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
    const described = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const contract = CONTRACT_ENDPOINTS.flatMap((endpoint) =>
      endpoint.methods.map((method) => `${method} ${endpoint.path}`),
    );
    expect(described.sort()).toEqual(contract.sort());
  });

  it('requires api_key exactly where the interface does (part 5), in every body type', () => {
    const paths = openApiDocument().paths as Record<string, Record<string, Operation>>;
    const keyed = CONTRACT_ENDPOINTS.filter(
      (endpoint) => endpoint.methods.includes('POST') && endpoint.key !== 'none',
    );
    expect(keyed.map((endpoint) => endpoint.path).sort()).toEqual([
      '/subscribe',
      '/subscribers',
      '/subscribers/add',
      '/subscribers/delete',
      '/unsubscribe',
    ]);
    for (const endpoint of keyed) {
      const body = paths[endpoint.path]?.post?.requestBody;
      expect(Object.keys(body?.content ?? {})).toEqual([
        'application/json',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
      ]);
      for (const media of Object.values(body?.content ?? {})) {
        expect(media.schema.properties).toHaveProperty('api_key');
        expect(media.schema.required?.includes('api_key'), endpoint.path).toBe(
          endpoint.key === 'required',
        );
      }
    }
  });

  it('documents the subscribe parameters from the validation schema, limits included', () => {
    const paths = openApiDocument().paths as Record<string, Record<string, Operation>>;
    const schema = paths['/subscribe']?.post?.requestBody?.content['application/json']?.schema as {
      required: string[];
      properties: Record<string, { maxLength?: number; anyOf?: { maxLength?: number }[] }>;
    };
    expect(schema.required).toEqual(['email']);
    expect(schema.properties.email?.maxLength).toBe(254);
    expect(schema.properties.name?.anyOf?.[0]?.maxLength).toBe(100);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining([
        'email',
        'name',
        'surname',
        'gender',
        'lists',
        'profile',
        'send_emails',
        'api_key',
      ]),
    );
  });
});
