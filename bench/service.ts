/** How the bench runs the service: the built CLI, `mds serve`, as an operator would. */
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

/** The service's log level under load (pino; warn logs nothing for a 200). */
export const SERVICE_LOG_LEVEL = 'warn';

/** Settings of the operator's environment that must not leak into a bench process. */
const CLEARED = [
  'MDS_DATABASE_URL',
  'MDS_REDIS_URL',
  'MDS_REDIS_PREFIX',
  'MDS_ADMIN_PORT',
  'MDS_ADMIN_HOST',
  'MDS_HOST',
  'MDS_PORT',
  'MDS_TLS_CERT',
  'MDS_TLS_KEY',
];

export function benchEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, MDS_LOG_LEVEL: SERVICE_LOG_LEVEL };
  for (const name of CLEARED) delete env[name];
  return { ...env, ...extra };
}

export function serviceCommand(
  port: number,
  dbUrl: string,
  extraEnv: Record<string, string> = {},
): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  return {
    command: process.execPath,
    args: [CLI, 'serve', '--host', '127.0.0.1', '--port', String(port), '--db', dbUrl],
    env: benchEnv(extraEnv),
  };
}
