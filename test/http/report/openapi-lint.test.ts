/**
 * The reporter API's OpenAPI document (/report/openapi.json) passes the same
 * linter, under the same rules (redocly.yaml), as the public and admin ones,
 * with no warning at all; it describes /report/v1 only, and the admin
 * document, served by the same listener, none of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminHarness, startAdminHarness } from '../../support/admin.js';
import type { OpenApiDocument } from '../../support/openapi.js';
import { redoclyLint } from '../../support/redocly.js';

describe('the reporter OpenAPI document under Redocly', () => {
  let h: AdminHarness;
  let document: string;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    h = await startAdminHarness({ name: 'sqlite' });
    const res = await h.admin.inject({ method: 'GET', url: '/report/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json();
    document = res.body;
  });
  afterAll(async () => h?.close());

  it('Redocly (redocly.yaml) reports nothing', async () => {
    const report = await redoclyLint(document, 'report-openapi.json');
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('describes /report/v1 alone, under the reporter token scheme; the admin document none of it', () => {
    expect(doc.security).toEqual([{ reporterToken: [] }]);
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/report/v1/consensus',
      '/report/v1/me',
      '/report/v1/quotes',
      '/report/v1/quotes/batch',
    ]);
    expect(Object.keys(h.adminDoc.paths).filter((p) => p.startsWith('/report'))).toEqual([]);
  });
});
