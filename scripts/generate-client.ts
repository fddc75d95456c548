/**
 * `npm run generate:client` (and `npm run build`): writes
 * packages/client/src/generated.ts from the OpenAPI document the app serves,
 * and packages/client/src/admin-generated.ts from the admin listener's
 * (/admin/openapi.json). With `--check` it writes nothing and exits 1 when a
 * file is out of date.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  ADMIN_GENERATED_PATH,
  generateAdminClientSource,
  loadAdminOpenApiDocument,
} from './admin-client-codegen.js';
import { GENERATED_PATH, generateClientSource, loadOpenApiDocument } from './client-codegen.js';

const check = process.argv.includes('--check');

const files: Array<[string, string]> = [
  [GENERATED_PATH, generateClientSource(await loadOpenApiDocument())],
  [ADMIN_GENERATED_PATH, generateAdminClientSource(await loadAdminOpenApiDocument())],
];

for (const [path, source] of files) {
  const target = resolve(path);
  const current = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
  // Quiet when up to date: `npm start` and `npm run mds` build first when a source changed.
  if (current === source) continue;
  if (check) {
    process.stderr.write(`${path} is out of date: run \`npm run generate:client\`\n`);
    process.exitCode = 1;
  } else {
    writeFileSync(target, source);
    process.stdout.write(`${path} ${current === undefined ? 'written' : 'regenerated'}\n`);
  }
}
