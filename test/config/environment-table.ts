/**
 * The table of docs/configuration.md, rendered from
 * the declaration of every MDS_* variable (src/config/environment.ts): its
 * name, description and default. test/config/environment.test.ts compares;
 * `npx vite-node test/config/environment-table.ts -- --write` rewrites it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Environment } from '../../src/config/environment.js';

export const DOC = join(import.meta.dirname, '..', '..', 'docs', 'configuration.md');
export const START = '<!-- environment table: rendered from src/config/environment.ts, do not edit -->';
export const END = '<!-- end of the environment table -->';

const cell = (text: string) => text.replaceAll('|', '\\|');

export function renderTable(): string {
  const rows = Object.entries(Environment.properties).map(([name, schema]) => {
    const s = schema as { description: string; default: string };
    return `| \`${name}\` | ${cell(s.description)} | ${s.default === '' ? 'unset' : `\`${cell(s.default)}\``} |`;
  });
  return [START, '', '| Variable | What it sets | Default |', '| --- | --- | --- |', ...rows, '', END].join(
    '\n',
  );
}

/** A table as text, its cells' padding left out (the formatter aligns the columns: `npx biome format`). */
export const unpadded = (table: string) =>
  table
    .split('\n')
    .map((line) => (line.startsWith('|') ? line.replace(/ {2,}/g, ' ').replace(/-{3,}/g, '---') : line))
    .join('\n');

/** The table as the document holds it, from its start marker to its end marker. */
export function documentedTable(text = readFileSync(DOC, 'utf8')): string {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start === -1 || end === -1) throw new Error(`${DOC} has no environment table (its markers)`);
  return text.slice(start, end + END.length);
}

if (process.argv.includes('--write')) {
  const text = readFileSync(DOC, 'utf8');
  writeFileSync(DOC, text.replace(documentedTable(text), renderTable()));
}
