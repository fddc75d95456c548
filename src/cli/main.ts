/**
 * `mds`: the operator's interface (decisions §11). Each command declares its
 * options; parsing is strict, so a mistyped option is an error, not a no-op.
 * `main` takes its arguments, environment and output streams as parameters and
 * answers the exit code, so tests of parsing and refusals call it in-process
 * (test/support/cli.ts); run.ts calls it with the process's own, bundled as
 * dist/mds-cli.mjs and loaded by the executable's first step (launch.ts).
 */
import { parseArgs } from 'node:util';
import { AdminError } from '../access/admin-error.js';
import { ConfigError, readCommandConfig } from '../config.js';
import { forbiddenCharacters } from '../schemas/admin-check.js';
import type { CommandContext, OptionSpec } from './command.js';
import { globalsLast } from './global-options.js';
import { CliError, type Io, output } from './output.js';
import { COMMANDS as commands } from './table.js';
import { requireExistingStore } from './with-store.js';

const COMMON: Record<string, OptionSpec> = {
  json: { type: 'boolean' },
  db: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

function usage(): string {
  return [
    'usage: mds [--db <url>] [--json] <command> [options]   (--json and --db <url> also after the command)',
    '',
    ...commands.map((c) => `  mds ${c.usage}`),
  ].join('\n');
}

/** Runs one `mds` command line; resolves with its exit code (a `serve` keeps running after it). */
export async function main(args: string[], io: Io = process): Promise<number> {
  const argv = globalsLast(args);
  const command = commands
    .filter((c) => c.name.every((w, i) => argv[i] === w))
    .sort((a, b) => b.name.length - a.name.length)[0];
  const json = argv.includes('--json');
  const out = output(json, io);
  if (!command) {
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
      io.stdout.write(`${usage()}\n`);
      return 0;
    }
    return fail(io, json, new CliError(`unknown command: ${argv.slice(0, 2).join(' ')}\n\n${usage()}`, 2));
  }
  try {
    const { values, positionals } = parseArgs({
      args: argv.slice(command.name.length),
      options: { ...COMMON, ...command.options },
      strict: true,
      allowPositionals: true,
    });
    // Every argument, as every admin input (schemas/admin-check.ts): no control character, named by its option.
    for (const [name, value] of Object.entries(values)) {
      const forbidden = forbiddenCharacters(value);
      if (forbidden) throw new AdminError(`--${name}: ${forbidden.message}`);
    }
    for (const [i, value] of positionals.entries()) {
      const forbidden = forbiddenCharacters(value);
      if (forbidden) throw new AdminError(`argument ${i + 1}: ${forbidden.message}`);
    }
    if (values.help) {
      io.stdout.write(`usage: mds ${command.usage}\n`);
      return 0;
    }
    const { min, max } = command.positionals ?? { min: 0, max: 0 };
    if (positionals.length < min || positionals.length > max) {
      throw new CliError(`usage: mds ${command.usage}`, 2);
    }
    const db = values.db as string | undefined;
    const config = readCommandConfig(io.env, db ? { MDS_DATABASE_URL: { flag: '--db', value: db } } : {});
    if (!command.createsStore) requireExistingStore(config.databaseUrl);
    await command.run({
      values: values as CommandContext['values'],
      positionals,
      out,
      databaseUrl: config.databaseUrl,
      plansFile: config.plansFile,
    });
    return 0;
  } catch (err) {
    return fail(io, json, err);
  }
}

function fail(io: Io, json: boolean, err: unknown): number {
  const known =
    err instanceof CliError ||
    err instanceof AdminError ||
    err instanceof ConfigError ||
    (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  const message = err instanceof Error ? err.message : String(err);
  const report = err instanceof CliError ? err.report : undefined;
  if (json) {
    io.stderr.write(`${JSON.stringify({ error: { message, ...report?.json } })}\n`);
  } else {
    io.stderr.write(`mds: ${known ? message : `unexpected error: ${message}`}\n`);
    for (const line of report?.text ?? []) io.stderr.write(`  ${line}\n`);
  }
  return err instanceof CliError ? err.exitCode : known ? 2 : 1;
}
