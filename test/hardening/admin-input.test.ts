/**
 * Hostile input on the admin listener and in the CLI's arguments
 * (docs/decisions.md 89, docs/security.md): a control character or a
 * bidirectional control in any admin input is a 400 naming the parameter,
 * never a 500 (PostgreSQL refuses NUL in text) nor a stored value; a path
 * parameter over 100 characters, a compressed body and a repeated
 * Idempotency-Key are refused in the envelope, quoting nothing of the input;
 * a client that never finishes its headers is cut off as on the public
 * listener. On every backend, where the store would see the value.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminApp } from '../../src/admin-app.js';
import { BIDI_SENTENCE, CONTROL_SENTENCE } from '../../src/schemas/admin-check.js';
import { type AdminHarness, startAdminHarness } from '../support/admin.js';
import { backends, sqliteOnly } from '../support/backends.js';
import { mdsInProcess } from '../support/cli.js';
import { expectErrorBody } from '../support/openapi.js';
import { connect } from '../support/raw-http.js';

const cursorOf = (at: number, id: string) => Buffer.from(JSON.stringify([at, id])).toString('base64url');

/** A POST with exactly these header lines (a name may repeat), over a real connection. */
function post(
  port: number,
  path: string,
  headers: Record<string, string | string[]>,
  body: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe.each(backends())('hostile admin input on $name', (backend) => {
  let h: AdminHarness;
  let token: string;
  let port: number;
  beforeAll(async () => {
    h = await startAdminHarness(backend);
    ({ token } = await h.token());
    await h.admin.listen({ host: '127.0.0.1', port: 0 });
    port = (h.admin.server.address() as AddressInfo).port;
  });
  afterAll(async () => h?.close());

  const noEcho = (body: string, ...raw: string[]) => {
    for (const r of raw) {
      expect(body).not.toContain(r);
      expect(body).not.toContain(JSON.stringify(r).slice(1, -1));
    }
  };

  it('refuses a control character in a list filter or a cursor: 400 naming the parameter', async () => {
    const cases: Array<[string, string, string]> = [
      ['/admin/v1/accounts?externalId=a%00b', 'externalId', 'invalid_parameter'],
      ['/admin/v1/accounts?email=%00', 'email', 'invalid_parameter'],
      ['/admin/v1/grants?provider=%00', 'provider', 'invalid_parameter'],
      ['/admin/v1/audit?actor=%00', 'actor', 'invalid_parameter'],
      ['/admin/v1/keys?grantId=grt_%1b%5b2J', 'grantId', 'invalid_parameter'],
      ['/admin/v1/webhooks?accountId=acc_%7f', 'accountId', 'invalid_parameter'],
    ];
    for (const [url, parameter, code] of cases) {
      const res = await h.call('GET', url, { token });
      expectErrorBody(res, 400, code, [{ parameter, message: CONTROL_SENTENCE }]);
      noEcho(res.body, '\u0000', '\u001b', '\u007f');
    }
    const cursor = cursorOf(Date.now(), 'acc_\u0000');
    const res = await h.call('GET', `/admin/v1/accounts?cursor=${cursor}`, { token });
    expectErrorBody(res, 400, 'invalid_cursor', [
      {
        parameter: 'cursor',
        message: 'is not a cursor this list gave: pass the nextCursor of the previous page',
      },
    ]);
  });

  it('refuses a control character in a path id: 400 naming it, on reads and writes', async () => {
    const cases: Array<[string, string, string]> = [
      ['GET', '/admin/v1/accounts/acc_%00', 'id'],
      ['PATCH', '/admin/v1/accounts/acc_%00', 'id'],
      ['GET', '/admin/v1/grants/grt_%0a', 'id'],
      ['GET', '/admin/v1/keys/%00', 'publicId'],
      ['POST', '/admin/v1/keys/%00/revoke', 'publicId'],
      ['GET', '/admin/v1/webhooks/whk_%00', 'id'],
      ['GET', '/admin/v1/webhooks/whk_%00/deliveries', 'id'],
    ];
    for (const [method, url, parameter] of cases) {
      const res = await h.call(method, url, {
        token,
        ...(method === 'GET' ? {} : { body: method === 'PATCH' ? { name: 'x' } : {} }),
      });
      expectErrorBody(res, 400, 'invalid_request', [{ parameter, message: CONTROL_SENTENCE }]);
    }
  });

  it('refuses a control character anywhere in a JSON body, nothing stored', async () => {
    const before = (await h.store.access.listAccounts({}, { limit: 1000 })).length;
    const bodies: Array<[Record<string, unknown>, string]> = [
      [{ name: 'a\u0000b' }, 'name'],
      [{ externalId: 'cus_\u0000' }, 'externalId'],
      [{ email: 'a\u0007@b.dz' }, 'email'],
    ];
    for (const [body, field] of bodies) {
      const res = await h.call('POST', '/admin/v1/accounts', { token, body });
      expectErrorBody(res, 400, 'invalid_request', [{ parameter: field, message: CONTROL_SENTENCE }]);
      noEcho(res.body, '\u0000', '\u0007');
    }
    const webhook = await h.call('POST', '/admin/v1/webhooks', {
      token,
      body: { url: 'https://example.com/hook', events: ['key.created'], description: 'line\nbreak' },
    });
    expectErrorBody(webhook, 400, 'invalid_request', [
      { parameter: 'description', message: CONTROL_SENTENCE },
    ]);
    expect((await h.store.access.listAccounts({}, { limit: 1000 })).length).toBe(before);
  });

  it('refuses bidirectional controls in names, external ids and labels; Arabic marks stay allowed', async () => {
    for (const [body, field] of [
      [{ name: 'invoice\u202egpj.exe' }, 'name'],
      [{ externalId: 'cus_\u2066x\u2069' }, 'externalId'],
    ] as const) {
      const res = await h.call('POST', '/admin/v1/accounts', { token, body });
      expectErrorBody(res, 400, 'invalid_request', [{ parameter: field, message: BIDI_SENTENCE }]);
    }
    const account = await h.call('POST', '/admin/v1/accounts', { token, body: { name: 'Bidi' } });
    const grant = await h.call('POST', '/admin/v1/grants', {
      token,
      body: { accountId: account.json().data.id, plan: 'basic' },
    });
    expect(grant.statusCode, grant.body).toBe(201);
    const key = await h.call('POST', '/admin/v1/keys', {
      token,
      body: { grantId: grant.json().data.id, label: 'prod\u202b' },
    });
    expectErrorBody(key, 400, 'invalid_request', [{ parameter: 'label', message: BIDI_SENTENCE }]);

    const asset = {
      code: 'XBD',
      symbol: 'B',
      names: { en: 'Bidi dinar', fr: 'Dinar bidi', ar: '\u200fدينار\u061c' },
      type: 'currency',
    };
    const imported = await h.call('POST', '/admin/v1/data/assets', {
      token,
      body: `${JSON.stringify(asset)}\n`,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(imported.statusCode, imported.body).toBe(200);
  });

  it('refuses a control or bidirectional character in an imported asset name, nothing stored', async () => {
    const asset = (en: string, ar = 'دينار') => ({
      code: 'XCD',
      symbol: 'C',
      names: { en, fr: 'Dinar', ar },
      type: 'currency',
    });
    for (const [record, sentence] of [
      [asset('Nul\u0000dinar'), CONTROL_SENTENCE],
      [asset('Bell\u0007dinar'), CONTROL_SENTENCE],
      [asset('Dinar', 'دينار\u202e'), BIDI_SENTENCE],
    ] as const) {
      const res = await h.call('POST', '/admin/v1/data/assets', {
        token,
        body: `${JSON.stringify(record)}\n`,
        headers: { 'content-type': 'application/x-ndjson' },
      });
      const error = expectErrorBody(res, 400, 'invalid_request', expect.any(Array)).error;
      expect(error.details).toEqual([{ parameter: 'line 1', message: expect.stringContaining(sentence) }]);
    }
    expect((await h.store.market.listAssets()).some((a) => a.code === 'XCD')).toBe(false);
  });

  it('answers a path parameter over 100 characters with 414 in the envelope, before authentication; an undecodable one with 400', async () => {
    const long = `acc_${'x'.repeat(120)}`;
    for (const t of [undefined, token]) {
      const res = await h.call('GET', `/admin/v1/accounts/${long}`, { token: t });
      expectErrorBody(res, 414, 'uri_too_long');
      expect(res.body).not.toContain(long);
    }
    const undecodable = await h.call('GET', '/admin/v1/accounts/acc_%C0%AE', { token });
    expectErrorBody(undecodable, 400, 'invalid_request', [
      { parameter: 'path', message: 'is not valid percent-encoded UTF-8' },
    ]);
    expect(undecodable.body).not.toContain('acc_');
  });

  it('refuses a compressed body with 415; identity is a body as any other', async () => {
    const body = JSON.stringify({ name: 'Zipped' });
    for (const encoding of ['gzip', 'br', 'deflate, gzip']) {
      const res = await h.call('POST', '/admin/v1/accounts', {
        token,
        body,
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      });
      expectErrorBody(res, 415, 'unsupported_media_type');
    }
    const plain = await h.call('POST', '/admin/v1/accounts', {
      token,
      body,
      headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
    });
    expect(plain.statusCode, plain.body).toBe(201);
  });

  it('refuses an Idempotency-Key sent twice: 400, no account created', async () => {
    const before = (await h.store.access.listAccounts({}, { limit: 1000 })).length;
    for (let i = 0; i < 2; i++) {
      const res = await post(
        port,
        '/admin/v1/accounts',
        {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'idempotency-key': ['twice', 'twice'],
        },
        JSON.stringify({ name: 'Twice' }),
      );
      expect(res.status, res.body).toBe(400);
      expect(JSON.parse(res.body).error.details).toEqual([
        { parameter: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters, sent once' },
      ]);
    }
    expect((await h.store.access.listAccounts({}, { limit: 1000 })).length).toBe(before);
    const once = await post(
      port,
      '/admin/v1/accounts',
      {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': 'once, once',
      },
      JSON.stringify({ name: 'Once' }),
    );
    expect(once.status, once.body).toBe(201);
  });

  it('refuses a control character in a CLI argument with the same sentence', async () => {
    const filter = await mdsInProcess(['accounts', 'list', '--external-id', 'a\u0000b'], { db: h.db.url });
    expect(filter.status, filter.stderr).toBe(2);
    expect(filter.stderr).toBe(`mds: --external-id: ${CONTROL_SENTENCE}\n`);
    const id = await mdsInProcess(['accounts', 'update', 'acc_\u001b[2J', '--name', 'x'], { db: h.db.url });
    expect(id.stderr).toBe(`mds: argument 1: ${CONTROL_SENTENCE}\n`);
    const name = await mdsInProcess(['accounts', 'create', '--name', 'a\u202eb'], { db: h.db.url });
    expect(name.status).toBe(2);
    expect(name.stderr).toBe(`mds: --name: ${BIDI_SENTENCE}\n`);
  });
});

describe.each(sqliteOnly())('slow clients on the admin listener ($name)', (backend) => {
  it('closes a connection that never finishes its headers, with 408 in the envelope', async () => {
    const h = await startAdminHarness(backend);
    const admin = await buildAdminApp(h.runtime.services, { logger: false, headersTimeoutMs: 200 });
    try {
      await admin.listen({ host: '127.0.0.1', port: 0 });
      const { port } = admin.server.address() as AddressInfo;
      const sockets = await Promise.all(Array.from({ length: 20 }, () => connect(port)));
      const answers = sockets.map(
        (socket) =>
          new Promise<string>((resolve) => {
            let text = '';
            socket.on('data', (d: Buffer) => {
              text += d.toString('latin1');
            });
            socket.on('error', () => {});
            socket.on('close', () => resolve(text));
            socket.write('POST /admin/v1/accounts HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
          }),
      );
      // The deadline of the wait, not a timing assertion: without the timeout they stay open for a minute.
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('slow connections still open after 10 s')), 10_000);
      });
      const texts = await Promise.race([Promise.all(answers), deadline]).finally(() => clearTimeout(timer));
      for (const text of texts) {
        expect(text.startsWith('HTTP/1.1 408 ')).toBe(true);
        expect(text).toContain('"code":"request_timeout"');
      }
    } finally {
      await admin.close();
      await h.close();
    }
  }, 20_000);
});
