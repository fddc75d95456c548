/** Which raw header lists repeat a credential (docs/decisions.md 60), in any spelling of the names. */
import { describe, expect, it } from 'vitest';
import { repeatedCredential } from '../../src/access/credential-headers.js';

describe('repeatedCredential', () => {
  it('counts Authorization and X-API-Key in any case, and nothing else of the same length', () => {
    const twice = (a: string, b: string) => repeatedCredential([a, 'Bearer k', 'Host', 'h', b, 'Bearer k']);
    expect(twice('Authorization', 'authorization')).toBe(true);
    expect(twice('AUTHORIZATION', 'AuThOrIzAtIoN')).toBe(true);
    expect(twice('X-API-Key', 'x-api-key')).toBe(true);
    expect(twice('X-Api-Key', 'X-API-KEY')).toBe(true);
    // Once each is not a repetition.
    expect(twice('Authorization', 'X-API-Key')).toBe(false);
    // Same lengths, other names: letters one apart, and the characters next to A–Z and a–z.
    for (const other of [
      'Authorisation',
      'Authorizatiom',
      '@uthorization',
      '[uthorization',
      'X_API-Key',
      'X-API-Kez',
      'X-API-Ke{',
    ]) {
      expect(twice('Authorization', other), other).toBe(false);
      expect(twice('X-API-Key', other), other).toBe(false);
    }
    expect(repeatedCredential([])).toBe(false);
  });
});
