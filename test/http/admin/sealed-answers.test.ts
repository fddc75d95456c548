/**
 * No secret at rest in the admin API's stored idempotent answers
 * (docs/decisions.md 104): a key created or rolled and a webhook secret made
 * or rotated under an Idempotency-Key are replayed, the same, to the token
 * that asked, while the store holds them sealed. On SQLite no byte of a key's
 * secret is in the store's files (the -wal file included); a webhook secret,
 * which the subscription keeps to sign (docs/security.md), is in no stored
 * answer. Another token under the same Idempotency-Key gets no one's answer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEALED_TAG } from '../../../src/domain/sealed-answers.js';
import { type AdminHarness, startAdminHarness } from '../../support/admin.js';
import { backends } from '../../support/backends.js';

/** Every row of idempotency_keys as text. */
async function storedAnswers(h: AdminHarness): Promise<string[]> {
  if (h.db.url.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: h.db.url });
    await client.connect();
    try {
      return (await client.query('select t::text as row from idempotency_keys t')).rows.map((r) => r.row);
    } finally {
      await client.end();
    }
  }
  const raw = new BetterSqlite3(h.db.url, { readonly: true });
  try {
    return raw
      .prepare('select * from idempotency_keys')
      .all()
      .map((r) => JSON.stringify(r));
  } finally {
    raw.close();
  }
}

/** The bytes of every file of a SQLite store (the store, its usage file, their -wal and -shm files). */
function storeFiles(h: AdminHarness): Buffer {
  const dir = dirname(h.db.url);
  return Buffer.concat(readdirSync(dir).map((name) => readFileSync(join(dir, name))));
}

describe.each(backends())('stored idempotent answers on $name', (backend) => {
  let h: AdminHarness;
  let token: string;
  let other: string;
  let grantId: string;
  const secrets: Record<string, string> = {};
  const first: Record<string, string> = {};

  beforeAll(async () => {
    h = await startAdminHarness(backend);
    h.runtime.services.webhooks = {
      ...h.runtime.services.webhooks,
      policy: { allowHttp: true, allowPrivate: true },
    };
    ({ token } = await h.token(undefined, 'billing'));
    ({ token: other } = await h.token(undefined, 'another'));
  });
  afterAll(async () => h?.close());

  const post = (url: string, body: unknown, key: string, as = token) =>
    h.call('POST', url, { token: as, body, headers: { 'idempotency-key': key } });

  /** The request under its key, its secret remembered, then replayed by the same token: the same answer. */
  async function madeAndReplayed(name: string, url: string, body: unknown, member: 'key' | 'secret') {
    const made = await post(url, body, `sealed-${name}`);
    expect(made.statusCode, made.body).toBeLessThan(300);
    secrets[name] = made.json().data[member];
    first[name] = made.body;
    const again = await post(url, body, `sealed-${name}`);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(made.body);
    return made.json().data;
  }

  it('replays each answer holding a secret, the same, to the token that asked', async () => {
    const account = await post('/admin/v1/accounts', { name: 'Sealed' }, 'sealed-account');
    const grant = await post('/admin/v1/grants', { accountId: account.json().data.id, plan: 'pro' }, 'g');
    grantId = grant.json().data.id;
    const created = await madeAndReplayed('key', '/admin/v1/keys', { grantId, label: 'k' }, 'key');
    expect(secrets.key).toMatch(/^mds_live_/);
    await madeAndReplayed('roll', `/admin/v1/keys/${created.apiKey.publicId}/roll`, {}, 'key');
    const hook = await madeAndReplayed(
      'webhook',
      '/admin/v1/webhooks',
      { url: 'http://127.0.0.1:9/hook', eventTypes: ['key.created'] },
      'secret',
    );
    await madeAndReplayed('rotate', `/admin/v1/webhooks/${hook.id}/rotate-secret`, {}, 'secret');
    expect(secrets.webhook).toMatch(/^whsec_/);
  });

  it('stores each of those answers sealed: no secret in the idempotency rows', async () => {
    const rows = await storedAnswers(h);
    expect(rows.length).toBeGreaterThanOrEqual(6);
    for (const row of rows) expect(row).toContain(SEALED_TAG);
    for (const [name, secret] of Object.entries(secrets)) {
      const body = secret.slice(secret.lastIndexOf('_') + 1);
      expect(
        rows.filter((r) => r.includes(body)),
        name,
      ).toEqual([]);
    }
  });

  it.runIf(backend.name === 'sqlite')('leaves no byte of a key’s secret in the SQLite files', () => {
    const bytes = storeFiles(h);
    for (const name of ['key', 'roll']) {
      const secret = secrets[name]!;
      expect(bytes.includes(secret), name).toBe(false);
      expect(bytes.includes(secret.slice(secret.lastIndexOf('_') + 1)), name).toBe(false);
    }
  });

  it('another token under the same Idempotency-Key gets an answer of its own, not the first', async () => {
    const made = await post('/admin/v1/keys', { grantId, label: 'k' }, 'sealed-key', other);
    expect(made.statusCode, made.body).toBe(201);
    expect(made.headers['idempotent-replayed']).toBeUndefined();
    expect(made.json().data.key).not.toBe(secrets.key);
    expect(made.body).not.toContain(secrets.key!.slice(secrets.key!.lastIndexOf('_') + 1));
    // The first token still gets its own answer.
    const again = await post('/admin/v1/keys', { grantId, label: 'k' }, 'sealed-key');
    expect(again.body).toBe(first.key);
  });
});
