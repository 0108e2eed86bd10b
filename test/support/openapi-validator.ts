import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../functions/http/openapi-document.ts';

const pointer = (part: string): string => part.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Validates a response body against the schema the API description gives for a path, method,
 * status and media type; returns the validator's errors (empty when the body conforms).
 */
export function createResponseValidator(
  document: Record<string, unknown> = openApiDocument(),
): (path: string, method: string, status: number, body: unknown) => string[] {
  // The description is registered whole, so `#/components/schemas/…` refs resolve inside it.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(document, 'openapi');
  const paths = document.paths as Record<string, Record<string, unknown>>;
  return (path, method, status, body) => {
    // A method the path does not have can only be answered with the error shape (405).
    const described = paths[path]?.[method.toLowerCase()] !== undefined;
    const ref = described
      ? `openapi#/paths/${pointer(path)}/${method.toLowerCase()}/responses/${status}/content/${pointer('application/json')}/schema`
      : 'openapi#/components/schemas/Error';
    const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
    return validate(body)
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}
