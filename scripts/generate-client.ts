/**
 * `npm run generate:client` (and `npm run build`): writes
 * packages/client/src/generated.ts from the OpenAPI document the app serves.
 * With `--check` it writes nothing and exits 1 when the file is out of date.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { GENERATED_PATH, generateClientSource, loadOpenApiDocument } from './client-codegen.js';

const target = resolve(GENERATED_PATH);
const check = process.argv.includes('--check');

const source = generateClientSource(await loadOpenApiDocument());
const current = existsSync(target) ? readFileSync(target, 'utf8') : undefined;

// Quiet when up to date: `npm start` and `npm run mds` build first when a source changed.
if (current !== source) {
  if (check) {
    process.stderr.write(`${GENERATED_PATH} is out of date: run \`npm run generate:client\`\n`);
    process.exitCode = 1;
  } else {
    writeFileSync(target, source);
    process.stdout.write(`${GENERATED_PATH} ${current === undefined ? 'written' : 'regenerated'}\n`);
  }
}
