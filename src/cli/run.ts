/**
 * The CLI bundle's entry (dist/mds-cli.mjs, loaded by launch.ts): `mds` with
 * this process's arguments, environment and streams (main.ts).
 */
import { globalsLast } from './global-options.js';
import { main } from './main.js';

main(process.argv.slice(2)).then(
  (code) => {
    // Long-running commands (serve) never resolve here with a code to exit on.
    if (code !== 0 || globalsLast(process.argv.slice(2))[0] !== 'serve') process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`mds: ${String(err)}\n`);
    process.exitCode = 1;
  },
);
