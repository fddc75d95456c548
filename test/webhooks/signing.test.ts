/**
 * Signatures a Standard Webhooks receiver accepts: the specification's own
 * example, the reference package's verify on our headers, and a rotation in
 * which the old and the new secret both sign.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSecret, signatureHeaders } from '../../src/webhooks/signing.js';

const PAYLOAD = '{"type":"rate.changed","data":{"code":"EUR","buy":262.5}}';

/** The package's verify, as a receiver runs it (it also wants a timestamp within five minutes of now). */
function verifies(secret: string, payload: string, headers: Record<string, string>): boolean {
  try {
    new Webhook(secret).verify(payload, headers);
    return true;
  } catch {
    return false;
  }
}

describe('newSecret', () => {
  it('is whsec_ and the base64 of 32 random bytes, accepted by the package', () => {
    const secrets = new Set(Array.from({ length: 20 }, newSecret));
    expect(secrets.size).toBe(20);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
      expect(() => new Webhook(secret)).not.toThrow();
    }
  });
});

describe('signatureHeaders', () => {
  it("matches the specification's example signature", () => {
    const headers = signatureHeaders({
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: new Date(1_614_265_330_000),
      payload: '{"test": 2432232314}',
      secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    });
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('writes the timestamp in whole seconds and verifies with the package', () => {
    const secret = newSecret();
    const timestamp = new Date(Math.floor(Date.now() / 1000) * 1000 + 999);
    const headers = signatureHeaders({ id: 'msg_1', timestamp, payload: PAYLOAD, secrets: [secret] });
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(timestamp.getTime() / 1000)));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verifies(secret, PAYLOAD, headers)).toBe(true);
    expect(verifies(secret, `${PAYLOAD} `, headers)).toBe(false);
    expect(verifies(secret, PAYLOAD, { ...headers, 'webhook-id': 'msg_2' })).toBe(false);
    expect(verifies(newSecret(), PAYLOAD, headers)).toBe(false);
  });

  it('signs with every secret during a rotation, so either one verifies', () => {
    const [previous, next] = [newSecret(), newSecret()];
    const headers = signatureHeaders({
      id: 'msg_1',
      timestamp: new Date(),
      payload: PAYLOAD,
      secrets: [previous, next],
    });
    const signatures = headers['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures.every((s) => s.startsWith('v1,'))).toBe(true);
    expect(verifies(previous, PAYLOAD, headers)).toBe(true);
    expect(verifies(next, PAYLOAD, headers)).toBe(true);
    expect(verifies(newSecret(), PAYLOAD, headers)).toBe(false);
  });

  it('refuses to sign with no secret or a malformed one', () => {
    const input = { id: 'msg_1', timestamp: new Date(), payload: PAYLOAD };
    expect(() => signatureHeaders({ ...input, secrets: [] })).toThrow(/no secret/);
    expect(() => signatureHeaders({ ...input, secrets: ['whsec_abc'] })).toThrow();
  });
});
