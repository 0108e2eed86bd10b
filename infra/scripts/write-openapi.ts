/** `npm run openapi`: writes docs/openapi.json from the route table and the schemas. */
import { writeFileSync } from 'node:fs';
import { openApiFileContent } from '../../functions/http/openapi-document.ts';

const file = new URL('../../docs/openapi.json', import.meta.url);
writeFileSync(file, openApiFileContent());
process.stdout.write(`wrote ${file.pathname}\n`);
