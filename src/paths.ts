/**
 * Files that ship beside the code (public/, config/) are found from the
 * project root: the nearest folder above this module that holds package.json.
 * The same lookup works from src/ (tests), from dist/src/ (tsc's output) and
 * from the CLI's bundle (dist/mds-cli.mjs and its chunks beside it), where
 * the modules of a chunk share one `import.meta.url`.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

export const PROJECT_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));
