/**
 * The server's configuration (src/config.ts): every MDS_* variable `mds serve`
 * reads is checked against one schema before anything starts, and every bad
 * value is named at once, each with what it must be (exit code 2).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig, ServeEnvironment, staleAfterSeconds } from '../../src/config.js';
import { DEFAULT_WEBHOOK_SETTINGS } from '../../src/webhooks/settings.js';
import { mds } from '../support/cli.js';

describe('serve configuration', () => {
  it('defaults every variable: the embedded default needs none', () => {
    expect(readConfig({})).toEqual({
      host: '127.0.0.1',
      port: 8080,
      redisUrl: undefined,
      redisCluster: false,
      redisPrefix: 'mds:',
      tlsCert: undefined,
      tlsKey: undefined,
      logLevel: 'info',
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 15_000,
      adminPort: undefined,
      adminHost: '127.0.0.1',
      reportPort: undefined,
      reportHost: '127.0.0.1',
      reportRateLimit: 120,
      consensus: { windowMs: 6 * 3_600_000, quorum: 3 },
      drainMs: 1000,
      trustProxy: '',
      contact: { name: 'Market Data Service (DZD) API support' },
      staleAfter: staleAfterSeconds(),
      publishedFamilies: ['parallel', 'official', 'transfer', 'gold'],
      webhooks: DEFAULT_WEBHOOK_SETTINGS,
    });
  });

  it('turns valid values into what the server takes; flags win over the environment', () => {
    const config = readConfig(
      {
        MDS_PORT: '9000',
        MDS_REDIS_URL: 'redis://10.0.0.5:6379',
        MDS_REDIS_CLUSTER: '1',
        MDS_LOG_LEVEL: 'warn',
        MDS_ADMIN_PORT: 'off',
        MDS_DRAIN_MS: '0',
        MDS_HEADERS_TIMEOUT_MS: '5000',
      },
      { MDS_PORT: { flag: '--port', value: '0' } },
    );
    expect(config).toMatchObject({
      port: 0,
      redisUrl: 'redis://10.0.0.5:6379',
      redisCluster: true,
      logLevel: 'warn',
      adminPort: undefined,
      drainMs: 0,
      headersTimeoutMs: 5000,
    });
  });

  it('names every bad value at once, each with what it must be', () => {
    let problems: string[] = [];
    try {
      readConfig(
        {
          MDS_DRAIN_MS: 'abc',
          MDS_LOG_LEVEL: 'loud',
          MDS_ADMIN_PORT: '65536',
          MDS_REDIS_URL: 'localhost:6379',
          MDS_REQUEST_TIMEOUT_MS: '0',
        },
        { MDS_PORT: { flag: '--port', value: '08080' } },
      );
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      problems = (err as ConfigError).problems;
    }
    expect(problems).toEqual([
      '--port: must be 0 to 65535',
      'MDS_REDIS_URL: must be a redis:// or rediss:// URL',
      'MDS_LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent',
      'MDS_REQUEST_TIMEOUT_MS: must be 1 to 9999999 (ms)',
      'MDS_ADMIN_PORT: must be 0 to 65535 or off',
      'MDS_DRAIN_MS: must be 0 to 999999 (ms)',
    ]);
  });

  it('reads the webhook variables: targets, schedule and polling, a bad schedule named with its fix', () => {
    const config = readConfig({
      MDS_WEBHOOK_ALLOW_HTTP: '1',
      MDS_WEBHOOK_ALLOW_PRIVATE: 'true',
      MDS_WEBHOOK_RETRY_SCHEDULE: '0,50ms,2s,1m',
      MDS_WEBHOOK_POLL_MS: '100',
    });
    expect(config.webhooks).toMatchObject({
      policy: { allowHttp: true, allowPrivate: true },
      delaysMs: [0, 50, 2_000, 60_000],
      pollMs: 100,
    });
    expect(() => readConfig({ MDS_WEBHOOK_RETRY_SCHEDULE: '5s,1m' })).toThrow(/MDS_WEBHOOK_RETRY_SCHEDULE: /);
    expect(() => readConfig({ MDS_WEBHOOK_POLL_MS: '0' })).toThrow(
      /MDS_WEBHOOK_POLL_MS: must be 10 to 999999/,
    );
  });

  it('reads the reporter listener and the consensus settings; a quorum below 3 is refused', () => {
    const config = readConfig({
      MDS_REPORT_PORT: '9100',
      MDS_REPORT_RATE_LIMIT: '30',
      MDS_CONSENSUS_WINDOW: '90m',
      MDS_CONSENSUS_QUORUM: '5',
    });
    expect(config).toMatchObject({
      reportPort: 9100,
      reportHost: '127.0.0.1',
      reportRateLimit: 30,
      consensus: { windowMs: 90 * 60_000, quorum: 5 },
    });
    expect(() => readConfig({ MDS_CONSENSUS_QUORUM: '2' })).toThrow(
      /MDS_CONSENSUS_QUORUM: must be a whole number from 3 to 999: a consensus needs at least 3 organisations/,
    );
    expect(() => readConfig({ MDS_CONSENSUS_WINDOW: '6 hours' })).toThrow(/MDS_CONSENSUS_WINDOW: must be /);
    expect(() => readConfig({ MDS_REPORT_PORT: '0', MDS_REPORT_HOST: '0.0.0.0' })).toThrow(
      /MDS_REPORT_HOST: the reporter listener would serve reporter tokens over plain HTTP on 0\.0\.0\.0/,
    );
    expect(
      readConfig({ MDS_REPORT_PORT: '0', MDS_REPORT_HOST: '0.0.0.0', MDS_ADMIN_ALLOW_PLAINTEXT: '1' })
        .reportPort,
    ).toBe(0);
  });

  it('checks the rules across variables once each passed its own', () => {
    expect(() => readConfig({ MDS_REDIS_CLUSTER: '1' })).toThrow(/MDS_REDIS_CLUSTER=1 needs MDS_REDIS_URL/);
    expect(() => readConfig({ MDS_HEADERS_TIMEOUT_MS: '20000' })).toThrow(
      /must not exceed the request timeout/,
    );
    expect(() => readConfig({ MDS_TLS_CERT: '/etc/cert.pem' })).toThrow(/set both \(HTTPS\) or neither/);
  });

  it('documents every variable in the schema', () => {
    for (const [name, schema] of Object.entries(ServeEnvironment.properties)) {
      expect(name).toMatch(/^MDS_[A-Z_]+$/);
      expect((schema as { description?: string }).description, name).toBeTruthy();
    }
  });

  it('mds serve refuses a bad configuration before it starts, exit code 2, every problem on its own line', async () => {
    const res = await mds(['serve', '--port', '0'], {
      env: { MDS_DRAIN_MS: 'soon', MDS_LOG_LEVEL: 'loud' },
    });
    expect(res.status).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe(
      'mds: MDS_LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent\nMDS_DRAIN_MS: must be 0 to 999999 (ms)\n',
    );
  });
});
