import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLIENT_TYPES_FILE, clientTypesSource } from './client-types.ts';

/** `npm run generate:client`: writes packages/client/src/generated/openapi.ts from the OpenAPI document. */
writeFileSync(CLIENT_TYPES_FILE, await clientTypesSource());
console.log(`generate:client: wrote ${path.relative(process.cwd(), CLIENT_TYPES_FILE)}`);
