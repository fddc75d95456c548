/**
 * `mds webhooks` through the built CLI, over the same operations as the admin
 * API (docs/webhooks.md): the secret printed once by create and rotate-secret
 * and never by list; a plain http:// URL refused unless
 * MDS_WEBHOOK_ALLOW_HTTP=1, the refusal naming the option and the fix; a rate
 * alert's filter from its options; disable and delete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, freshDatabase } from '../support/backends.js';
import { mds } from '../support/cli.js';

describe('mds webhooks', () => {
  let db: Database;
  const run = (args: string[], env?: Record<string, string>) => mds(args, { db: db.url, env });

  beforeAll(async () => {
    db = await freshDatabase('sqlite');
    const store = db.open();
    await store.migrate();
    await store.close();
    expect((await run(['seed', 'sample', '--days', '3'])).status).toBe(0);
  });
  afterAll(async () => db?.drop());

  it('creates, lists, rotates, disables and deletes a subscription; the secret is printed only when made', async () => {
    const created = await run([
      'webhooks',
      'create',
      '--url',
      'https://example.com/hooks/mds',
      '--events',
      'rate.alert,data.imported',
      '--metric',
      'rate',
      '--currency',
      'EUR',
      '--source',
      'parallel',
      '--side',
      'sell',
      '--above',
      '300',
      '--json',
    ]);
    expect(created.stderr).toBe('');
    const hook = created.json();
    expect(hook.secret).toMatch(/^whsec_/);
    expect(hook.filter).toEqual({
      metric: 'rate',
      currency: 'EUR',
      source: 'parallel',
      side: 'sell',
      above: '300',
    });

    const listed = await run(['webhooks', 'list', '--json']);
    expect(listed.stdout).toContain(hook.id);
    expect(listed.stdout).not.toContain('whsec_');

    const rotated = (await run(['webhooks', 'rotate-secret', hook.id, '--json'])).json();
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);

    const disabled = (await run(['webhooks', 'update', hook.id, '--disable', '--json'])).json();
    expect(disabled.status).toBe('disabled');
    expect((await run(['webhooks', 'delete', hook.id])).status).toBe(0);
    expect((await run(['webhooks', 'list', '--json'])).stdout).not.toContain(hook.id);
  });

  it('refuses plain http:// unless MDS_WEBHOOK_ALLOW_HTTP=1, naming the option and the fix', async () => {
    const args = [
      'webhooks',
      'create',
      '--url',
      'http://example.com/hook',
      '--events',
      'key.created',
      '--json',
    ];
    const refused = await run(args);
    expect(refused.status).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/--url/);
    expect(refused.stderr).toMatch(/MDS_WEBHOOK_ALLOW_HTTP=1/);
    const allowed = await run(args, { MDS_WEBHOOK_ALLOW_HTTP: '1' });
    expect(allowed.stderr).toBe('');
    expect(allowed.json().url).toBe('http://example.com/hook');
  });
});
