/**
 * The admin listener's OpenAPI document (/admin/openapi.json) passes the same
 * linter, under the same rules (redocly.yaml), as the public one
 * (test/http/openapi-lint.test.ts), with no warning at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminHarness, startAdminHarness } from '../../support/admin.js';
import { redoclyLint } from '../../support/redocly.js';

describe('the admin OpenAPI document under Redocly', () => {
  let h: AdminHarness;
  let document: string;
  beforeAll(async () => {
    h = await startAdminHarness({ name: 'sqlite' });
    const res = await h.admin.inject({ method: 'GET', url: '/admin/openapi.json' });
    expect(res.statusCode).toBe(200);
    document = res.body;
  });
  afterAll(async () => h?.close());

  it('Redocly (redocly.yaml) reports nothing', async () => {
    const report = await redoclyLint(document, 'admin-openapi.json');
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('names the scope of every operation, in x-scope and its description, under the admin token scheme', () => {
    expect(h.adminDoc.security).toEqual([{ adminToken: [] }]);
    for (const [path, operations] of Object.entries(h.adminDoc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const scope = op['x-scope'];
        expect(typeof scope, `${method} ${path}`).toBe('string');
        expect(op.security, `${method} ${path}`).toBeUndefined();
        expect(String(op.description)).toContain(`Requires the scope \`${scope}\`.`);
      }
    }
  });
});
