/**
 * `mds --db x.sqlite --json keys list` is `mds keys list --db x.sqlite --json`
 * (decisions 90): the global options typed before the command are moved after
 * it. Its own module, without imports: the executable's first step
 * (launch.ts) reads the command with it before the CLI is loaded.
 */
export function globalsLast(argv: readonly string[]): string[] {
  const globals: string[] = [];
  let i = 0;
  for (;;) {
    const arg = argv[i];
    if (arg === '--json' || arg?.startsWith('--db=')) {
      globals.push(arg);
      i += 1;
    } else if (arg === '--db' && i + 1 < argv.length) {
      globals.push(arg, argv[i + 1]!);
      i += 2;
    } else break;
  }
  const rest = argv.slice(i);
  // Before a `--`: after it, every word is a positional.
  const end = rest.includes('--') ? rest.indexOf('--') : rest.length;
  return [...rest.slice(0, end), ...globals, ...rest.slice(end)];
}
