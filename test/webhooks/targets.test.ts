/**
 * Where webhooks may go: the address table (IPv4 and IPv6 special-purpose
 * ranges, IPv4-mapped and NAT64 forms of them), the URL rules checked at
 * subscription time, and the delivery-time resolution that refuses a name
 * when any of its addresses is not public.
 */
import { describe, expect, it } from 'vitest';
import { checkUrl, isRefusedAddress, type Lookup, resolveTarget } from '../../src/webhooks/targets.js';

const STRICT = { allowHttp: false, allowPrivate: false };
const LENIENT = { allowHttp: true, allowPrivate: true };

describe('isRefusedAddress', () => {
  it.each([
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.10',
    '127.0.0.1',
    '127.1.2.3',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.254',
    '0.0.0.0',
    '0.1.2.3',
    '192.0.0.8',
    '192.0.2.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'fec0::1',
    'fc00::1',
    'fd12:3456:789a::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '64:ff9b::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::1',
    '::127.0.0.1',
    '2001:db8::1',
    '2001::1',
    '2002:c000:0204::1',
    '3fff::1',
    '100::1',
    '4000::1',
    'not-an-ip',
    '',
  ])('refuses %j', (ip) => {
    expect(isRefusedAddress(ip)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.255.0.1',
    '192.169.0.1',
    '11.0.0.1',
    '223.255.255.254',
    '2001:4860::8888',
    '2001:4860:4860::8888',
    '2606:4700:4700::1111',
    '2a00:1450:4007:80e::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
  ])('allows %j', (ip) => {
    expect(isRefusedAddress(ip)).toBe(false);
  });
});

describe('checkUrl', () => {
  it('accepts an https URL, with a port, path and query', () => {
    const checked = checkUrl('https://hooks.example.com:8443/in/mds?tenant=7', STRICT);
    expect(checked.ok).toBe(true);
    if (checked.ok) expect(checked.url.href).toBe('https://hooks.example.com:8443/in/mds?tenant=7');
  });

  it('refuses http:// unless allowHttp, saying how to allow it', () => {
    expect(checkUrl('http://x', STRICT)).toEqual({
      ok: false,
      problem:
        'http://x is plain HTTP: webhooks are delivered over https:// only (set MDS_WEBHOOK_ALLOW_HTTP=1 to allow http:// for testing)',
    });
    expect(checkUrl('http://hooks.example.com/in', { allowHttp: true, allowPrivate: false }).ok).toBe(true);
  });

  it.each([
    ['not a url', 'is not a URL: write an absolute https:// URL'],
    ['/relative/path', 'is not a URL'],
    ['ftp://hooks.example.com/in', 'uses the ftp scheme: webhooks are delivered over https:// only'],
    ['javascript:alert(1)', 'uses the javascript scheme'],
    ['https://hooks.example.com/in#part', 'has a fragment'],
    ['https://hooks.example.com/in#', 'has a fragment'],
    ['https://127.0.0.1/in', 'points to 127.0.0.1, a loopback address'],
    ['https://169.254.169.254/latest/meta-data', 'a link-local address'],
    ['https://10.1.2.3/', 'a private address'],
    ['https://[::1]:8443/', 'points to ::1, a loopback address'],
    ['https://[::ffff:192.168.0.1]/', 'points to ::ffff:c0a8:1, a private address'],
    ['https://2130706433/', 'points to 127.0.0.1'],
    ['https://0x7f.1/', 'points to 127.0.0.1'],
    ['https://localhost:3000/', 'points to localhost, a loopback address'],
    ['https://api.localhost/', 'a loopback address'],
  ])('refuses %j', (url, problem) => {
    const checked = checkUrl(url, STRICT);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problem).toContain(problem);
  });

  it('names non-public addresses with how to allow them', () => {
    const checked = checkUrl('https://192.168.1.1/', STRICT);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problem).toContain('(set MDS_WEBHOOK_ALLOW_PRIVATE=1');
  });

  it('refuses credentials even when everything else is allowed, without repeating them', () => {
    const checked = checkUrl('https://billing:hunter2@hooks.example.com/in', LENIENT);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.problem).toContain('https://***@hooks.example.com/in holds credentials');
    expect(checked.problem).not.toContain('hunter2');
    expect(checked.problem).not.toContain('billing');
  });

  it('allows non-public literal addresses and http:// with a lenient policy', () => {
    expect(checkUrl('http://127.0.0.1:4000/hook', LENIENT).ok).toBe(true);
    expect(checkUrl('http://localhost:4000/hook', LENIENT).ok).toBe(true);
    expect(checkUrl('https://[fd00::1]/hook', LENIENT).ok).toBe(true);
  });

  it('shortens a very long value in its problem', () => {
    const checked = checkUrl(`ftp://${'a'.repeat(5000)}.example`, STRICT);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problem.length).toBeLessThan(400);
  });
});

/** A resolver answering from a table, recording what it was asked. */
function table(answers: Record<string, { address: string; family: number }[]>) {
  const asked: string[] = [];
  const lookup: Lookup = async (hostname, options) => {
    expect(options).toEqual({ all: true });
    asked.push(hostname);
    const found = answers[hostname];
    if (found === undefined)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  };
  return { lookup, asked };
}

describe('resolveTarget', () => {
  const { lookup, asked } = table({
    'public.example': [
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ],
    'mixed.example': [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ],
    'mapped.example': [{ address: '::ffff:169.254.169.254', family: 6 }],
    'v6.example': [{ address: '2001:4860::8888', family: 6 }],
    'empty.example': [],
  });

  it('answers the first address when all are public', async () => {
    expect(await resolveTarget(new URL('https://public.example/in'), STRICT, lookup)).toEqual({
      ok: true,
      address: '93.184.215.14',
      family: 4,
    });
    expect(await resolveTarget(new URL('https://v6.example/in'), STRICT, lookup)).toEqual({
      ok: true,
      address: '2001:4860::8888',
      family: 6,
    });
  });

  it('refuses a name when any one of its addresses is not public', async () => {
    const mixed = await resolveTarget(new URL('https://mixed.example/in'), STRICT, lookup);
    expect(mixed).toEqual({
      ok: false,
      problem:
        'mixed.example resolves to 10.0.0.7, a private address: webhooks are delivered to public addresses only (set MDS_WEBHOOK_ALLOW_PRIVATE=1 to allow non-public addresses for testing)',
    });
    const mapped = await resolveTarget(new URL('https://mapped.example/in'), STRICT, lookup);
    expect(mapped.ok).toBe(false);
    if (!mapped.ok) expect(mapped.problem).toContain('::ffff:169.254.169.254, a link-local address');
  });

  it('allows them with allowPrivate', async () => {
    expect(await resolveTarget(new URL('https://mixed.example/in'), LENIENT, lookup)).toEqual({
      ok: true,
      address: '93.184.215.14',
      family: 4,
    });
  });

  it('answers a problem for a name that does not resolve, or to nothing', async () => {
    const missing = await resolveTarget(new URL('https://missing.example/in'), STRICT, lookup);
    expect(missing).toEqual({
      ok: false,
      problem: "missing.example could not be resolved (ENOTFOUND): check the subscription's URL",
    });
    const empty = await resolveTarget(new URL('https://empty.example/in'), STRICT, lookup);
    expect(empty.ok).toBe(false);
    if (!empty.ok) expect(empty.problem).toContain('resolved to no IP address');
  });

  it('checks the URL again, and takes a literal address without resolving it', async () => {
    asked.length = 0;
    const http = await resolveTarget(new URL('http://public.example/in'), STRICT, lookup);
    expect(http.ok).toBe(false);
    if (!http.ok) expect(http.problem).toContain('is plain HTTP');
    expect(await resolveTarget(new URL('https://[2001:4860::8888]/in'), STRICT, lookup)).toEqual({
      ok: true,
      address: '2001:4860::8888',
      family: 6,
    });
    expect(await resolveTarget(new URL('http://127.0.0.1:4000/'), LENIENT, lookup)).toEqual({
      ok: true,
      address: '127.0.0.1',
      family: 4,
    });
    expect((await resolveTarget(new URL('https://127.0.0.1/'), STRICT, lookup)).ok).toBe(false);
    expect(asked).toEqual([]);
  });

  it('uses the system resolver by default', async () => {
    expect(await resolveTarget(new URL('http://localhost:4000/'), LENIENT)).toMatchObject({ ok: true });
    const refused = await resolveTarget(new URL('https://localhost/'), STRICT);
    expect(refused.ok).toBe(false);
  });
});
