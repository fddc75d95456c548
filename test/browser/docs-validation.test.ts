/**
 * Scalar's reference at /docs/ loads the served OpenAPI document without a
 * validation error (docs/decisions.md 64). Scalar checks every component
 * reached through a `$ref` against its own schema of schemas and logs
 * "document validation errors" with the list, as it did for the four records
 * once written as unions without `type` (test/http/openapi-components.test.ts
 * checks the rule on the document itself). Debian's chromium, headless, against
 * a real `mds serve`; skipped, saying why, without chromium (test/support/browser.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, launchChromium } from '../support/browser.js';
import { type ServerProcess, spawnServer } from '../support/server-process.js';
import { waitFor } from '../support/wait.js';

const chromiumPath = findChromium();

describe.skipIf(chromiumPath === null)('/docs/ in a headless browser', () => {
  let dir: string;
  let server: ServerProcess;
  let browser: Browser;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-docs-validation-'));
    [server, browser] = await Promise.all([
      spawnServer({ db: join(dir, 'mds.sqlite') }),
      launchChromium(chromiumPath!),
    ]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('loads the document with no validation error', async () => {
    const page = await browser.newPage();
    try {
      const warnings: string[] = [];
      const errors: unknown[] = [];
      const reading: Promise<void>[] = [];
      let added = false;
      page.on('console', (message) => {
        const text = message.text();
        // Scalar times its steps: "addDocument: 1082 ms" comes once the document is validated and stored.
        if (text.startsWith('addDocument:')) added = true;
        if (message.type() !== 'warning') return;
        warnings.push(text);
        // The list follows the heading as its own message: an array of { message, path, schema, value }.
        for (const arg of message.args()) {
          reading.push(
            arg.jsonValue().then(
              (value: unknown) => {
                if (Array.isArray(value))
                  errors.push(...value.map((e) => ({ path: e?.path, message: e?.message })));
              },
              () => undefined,
            ),
          );
        }
      });
      await page.goto(`${new URL(server.url).origin}/docs/`);
      await waitFor(() => added, { timeout: 25_000, interval: 100, what: 'Scalar adding the document' });
      await Promise.all(reading);
      expect(warnings.filter((w) => /validation/i.test(w))).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});
