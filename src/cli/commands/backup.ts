/**
 * `mds backup <file>`: a consistent copy of a SQLite store, taken while a
 * server serves from it (decisions 56). SQLite's `VACUUM INTO` writes each file
 * of the store from one read snapshot; writers go on meanwhile. The copy is laid
 * out as the store is: `<file>` and its usage file beside it
 * (`copy.sqlite` → `copy-usage.sqlite`), so `mds serve --db <file>` serves it.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { describeStore, sqlitePath } from '../../storage/open.js';
import { SqliteStore } from '../../storage/sqlite.js';
import { USAGE_SCHEMA, usageFilePath } from '../../storage/sqlite-files.js';
import type { Command } from '../command.js';
import { CliError } from '../output.js';

export const backupCommand: Command = {
  name: ['backup'],
  usage: 'backup <file>   (SQLite: a consistent copy of the store, and of its usage file beside it)',
  positionals: { min: 1, max: 1 },
  async run({ out, positionals, databaseUrl }) {
    const path = sqlitePath(databaseUrl);
    if (path === null) {
      throw new CliError(
        `mds backup copies a SQLite store; ${describeStore(databaseUrl!)} is PostgreSQL: use pg_dump, e.g. ` +
          `pg_dump -Fc --dbname "$MDS_DATABASE_URL" -f mds.dump (docs/operations.md, Backups)`,
        2,
      );
    }
    const file = positionals[0]!;
    const usageFile = usageFilePath(file);
    if (file === ':memory:')
      throw new CliError('mds backup needs a file name, e.g. backups/mds-2026-01-31.sqlite', 2);
    for (const target of [file, usageFile]) {
      if (existsSync(target)) {
        throw new CliError(`${target} already exists: choose another name, or delete it first`, 2);
      }
    }
    if (path === ':memory:' || !existsSync(path)) {
      throw new CliError(`no SQLite store at ${path}: name the store with --db or MDS_DATABASE_URL`, 2);
    }
    mkdirSync(dirname(file), { recursive: true });
    const started = performance.now();
    const store = SqliteStore.open(path, { readonly: true });
    try {
      const conn = store.conn;
      const attached = conn.statement('select name from pragma_database_list', 'pluck').all() as string[];
      // The usage file first: every grant its rows name is then in the store's
      // copy, taken after it (grants are never deleted).
      if (attached.includes(USAGE_SCHEMA)) conn.statement(`vacuum ${USAGE_SCHEMA} into ?`).run(usageFile);
      conn.statement('vacuum main into ?').run(file);
    } finally {
      await store.close();
    }
    const files = [file, ...(existsSync(usageFile) ? [usageFile] : [])];
    const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
    const seconds = Math.round(performance.now() - started) / 1000;
    out.result(
      { store: path, files, bytes, seconds },
      `backed up ${path} to ${files.join(' and ')} (${bytes.toLocaleString('en')} bytes, ${seconds} s)`,
    );
  },
};
