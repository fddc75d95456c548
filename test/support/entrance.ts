/**
 * Which entrance answered a request (src/http/v1/entrance.ts): the raw one, or
 * Fastify's route. For tests that must show both entrances give one answer.
 */
import { expect, vi } from 'vitest';
import { RawEntrance } from '../../src/http/v1/entrance.js';
import { sendLines } from './raw-http.js';

/** Every call of the raw entrance's `take`: true when it answered the request itself. */
export const take = vi.spyOn(RawEntrance.prototype, 'take');

/** Whether the last request was answered by the raw entrance. */
export const tookRaw = (): boolean => take.mock.results.at(-1)?.value as boolean;

/** Until the key is verified and served by the raw entrance, so that a 200 would come from it. */
export async function rawEntranceReady(port: number, key: string): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const res = await sendLines(port, '/v1/rates/latest', [`Authorization: Bearer ${key}`]);
    expect(res.status).toBe(200);
    if (tookRaw()) return;
  }
  expect(tookRaw(), 'a verified Bearer key takes the raw entrance').toBe(true);
}

/**
 * The next request the server receives goes to Fastify's route: the raw
 * entrance declines it, once. The raw entrance takes every /v1 request itself,
 * so this is how a test gets Fastify's answer to compare with it.
 */
export function nextThroughFastify(): void {
  take.mockImplementationOnce(() => false);
}
