/**
 * The served OpenAPI document passes Redocly's linter with no warning at all,
 * on exactly the bytes GET /openapi.json answers, under redocly.yaml:
 * Redocly's `recommended` ruleset at its default severities, plus the rules of
 * Spectral's `spectral:oas` that `recommended` leaves off (info-contact,
 * operation-description, operation-tag-defined, operation-tags, no-unsafe-markdown…).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.js';
import { redoclyLint } from '../support/redocly.js';

describe('the served OpenAPI document under Redocly', () => {
  let h: Harness;
  let document: string;
  beforeAll(async () => {
    h = await startHarness({ name: 'sqlite' }, { seed: false });
    const res = await h.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    document = res.body;
  });
  afterAll(async () => h?.close());

  it('Redocly (redocly.yaml) reports nothing', async () => {
    const report = await redoclyLint(document, 'openapi.json');
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });
});
