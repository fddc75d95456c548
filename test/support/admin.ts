/**
 * The admin listener's application for a test, beside the public one of a
 * harness (harness.ts) on the same running services: every answer its
 * `inject` returns is checked against /admin/openapi.json (openapi.ts,
 * `validateResponses`), and admin tokens are made with the operation the CLI
 * uses.
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildAdminApp } from '../../src/admin-app.js';
import { createAdminToken, revokeAdminToken } from '../../src/use-cases/admin-tokens.js';
import type { Actor } from '../../src/use-cases/contract.js';
import type { Backend } from './backends.js';
import { type Harness, startHarness } from './harness.js';
import type { OpenApiDocument } from './openapi.js';
import { validateResponses } from './openapi.js';

export const TEST_ACTOR: Actor = { id: 'cli', label: 'test', requestId: null };
export const ALL_ADMIN_SCOPES = [
  'accounts:read',
  'accounts:write',
  'keys:write',
  'usage:read',
  'data:write',
  'audit:read',
  'webhooks:write',
  'reporters:write',
  'admin-tokens:write',
];

export interface AdminHarness extends Harness {
  admin: FastifyInstance;
  adminDoc: OpenApiDocument;
  /** A new admin token with these scopes (every scope by default): the token and its public id. */
  token(scopes?: string[], label?: string): Promise<{ token: string; publicId: string }>;
  revokeToken(publicId: string): Promise<void>;
  /** A request to the admin app with this token (none when undefined). */
  call(
    method: string,
    url: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string>; remoteAddress?: string },
  ): Promise<LightMyRequestResponse>;
}

/** The admin document the admin app serves, from an app started for the purpose (no data). */
export async function servedAdminOpenApi(): Promise<OpenApiDocument> {
  const h = await startAdminHarness({ name: 'sqlite' });
  try {
    return h.adminDoc;
  } finally {
    await h.close();
  }
}

export async function startAdminHarness(
  backend: Backend,
  options: { seed?: boolean; now?: () => number } = {},
): Promise<AdminHarness> {
  const h = await startHarness(backend, { seed: options.seed ?? false, now: options.now });
  const admin = await buildAdminApp(h.runtime.services, { logger: false });
  await admin.ready();
  const adminDoc = await validateResponses(admin, '/admin/openapi.json');
  const close = h.close;
  return Object.assign(h, {
    admin,
    adminDoc,
    async token(scopes = ALL_ADMIN_SCOPES, label = 'test token') {
      const result = await createAdminToken(h.store, TEST_ACTOR, { label, scopes });
      if (!result.ok) throw new Error(JSON.stringify(result.error));
      return { token: result.value.token, publicId: result.value.publicId };
    },
    async revokeToken(publicId: string) {
      const result = await revokeAdminToken(h.store, TEST_ACTOR, { id: publicId });
      if (!result.ok) throw new Error(JSON.stringify(result.error));
    },
    call(
      method: string,
      url: string,
      o: { token?: string; body?: unknown; headers?: Record<string, string>; remoteAddress?: string } = {},
    ) {
      const headers: Record<string, string> = { ...o.headers };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      const request: InjectOptions = {
        method: method as InjectOptions['method'],
        url,
        headers,
        ...(o.remoteAddress ? { remoteAddress: o.remoteAddress } : {}),
      };
      if (o.body !== undefined) {
        if (typeof o.body === 'string' || Buffer.isBuffer(o.body)) request.payload = o.body;
        else {
          request.payload = JSON.stringify(o.body);
          headers['content-type'] ??= 'application/json';
        }
      }
      return admin.inject(request);
    },
    async close() {
      await admin.close();
      await close();
    },
  });
}
