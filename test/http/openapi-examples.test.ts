/**
 * The reference at /docs shows an example for every endpoint's 200 and every
 * error status; each example must itself satisfy the schema it illustrates,
 * or the documentation would teach a shape the API never sends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.js';
import { newAjv } from '../support/openapi.js';

describe('OpenAPI examples', () => {
  let h: Harness;
  // biome-ignore lint/suspicious/noExplicitAny: the document is walked loosely
  let doc: any;
  beforeAll(async () => {
    h = await startHarness({ name: 'sqlite' }, { seed: false });
    doc = (await h.app.inject('/openapi.json')).json();
  });
  afterAll(async () => h?.close());

  it('has a valid example for every 200 and every documented error', () => {
    const ajv = newAjv();
    let checked = 0;
    for (const [path, item] of Object.entries<Record<string, { responses: Record<string, unknown> }>>(
      doc.paths,
    )) {
      for (const [status, response] of Object.entries(item.get!.responses)) {
        if (status === '304') continue;
        // biome-ignore lint/suspicious/noExplicitAny: OpenAPI response object
        const media = (response as any).content?.['application/json'];
        const schema = media?.schema;
        expect(schema, `${path} ${status} has a schema`).toBeDefined();
        const example = media.example;
        expect(example, `${path} ${status} has an example`).toBeDefined();
        // `#/components/...` refs resolve against the document's components.
        const valid = ajv.validate({ ...schema, components: doc.components }, example);
        expect(valid, `${path} ${status}: ${ajv.errorsText()}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(40);
  });
});
