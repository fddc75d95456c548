/**
 * One admin port in every document: the admin listener is off unless
 * `MDS_ADMIN_PORT` names a port (its default is `off`), and every example that
 * reaches it (the admin API, `/metrics`, `MDS_ADMIN_PORT=…`) uses the same one,
 * so an operator who copies two examples reaches one listener.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultOf } from '../../src/config/environment.js';

const DOCS_PORT = 9090;

const files = [
  'README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
  ...readdirSync('packages').map((p) => join('packages', p, 'README.md')),
];

/** Every port an example of `file` gives the admin listener, with its line. */
function adminPorts(file: string): Array<{ where: string; port: number }> {
  const found: Array<{ where: string; port: number }> = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const where = `${file}:${i + 1}: ${line.trim()}`;
      for (const m of line.matchAll(/MDS_ADMIN_PORT=(\d+)/g)) found.push({ where, port: Number(m[1]) });
      // An address on a line about the admin listener: /admin/…, /metrics, an admin URL.
      if (/\/admin\b|\/metrics\b|ADMIN/.test(line)) {
        for (const m of line.matchAll(/(?:127\.0\.0\.1|localhost|\[::1\]):(\d+)/g)) {
          found.push({ where, port: Number(m[1]) });
        }
      }
    });
  return found;
}

describe('the admin port of the docs', () => {
  it('is off by default', () => {
    expect(defaultOf('MDS_ADMIN_PORT')).toBe('off');
  });

  it(`is ${DOCS_PORT} in every example`, () => {
    const all = files.flatMap(adminPorts);
    expect(all.length).toBeGreaterThanOrEqual(4);
    expect(all.filter((p) => p.port !== DOCS_PORT).map((p) => p.where)).toEqual([]);
  });
});
