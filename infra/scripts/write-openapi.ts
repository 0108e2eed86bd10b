/** `npm run openapi`: writes docs/openapi.json (v1) and docs/openapi-v2.json from the routes. */
import { writeFileSync } from 'node:fs';
import { openApiFileContent } from '../../functions/http/openapi-document.ts';
import { openApiV2FileContent } from '../../functions/http/openapi-v2-document.ts';

for (const [name, content] of [
  ['openapi.json', openApiFileContent()],
  ['openapi-v2.json', openApiV2FileContent()],
] as const) {
  const file = new URL(`../../docs/${name}`, import.meta.url);
  writeFileSync(file, content);
  process.stdout.write(`wrote ${file.pathname}\n`);
}
