/**
 * A parallel rate published by the consensus of a running `mds serve`, made
 * as the field makes it: an organisation and a reporter each (the CLI), one
 * quote each through the reporter API (POST /report/v1/quotes), so the pages'
 * tests show a record whose `quality` says `consensus` (docs/decisions.md
 * 114). The server runs with STREET_RATE_ENV: its reporter listener, and a
 * quorum of every organisation quoting, so the one point it publishes (the
 * first goes out at once, decisions 109) holds them all.
 */
import { expect } from 'vitest';
import { mds } from './cli.js';
import { bannerUrl } from './listener.js';
import { getJson, type ServerProcess } from './server-process.js';
import { waitFor } from './wait.js';

/**
 * Five desks around 260 (sell 2 above each buy): the median buy 260, sell 262;
 * mids 260.5 260.8 261 261.1 261.3, m 261, MAD 0.2, dispersion 1.4826 × 0.2 /
 * 261 × 100 = 0.11 %; five organisations within 0.5 %: confidence high
 * (docs/methodology.md).
 */
export const STREET_BUYS = [259.5, 259.8, 260.0, 260.1, 260.3];
export const STREET_QUALITY = {
  method: 'consensus',
  organisations: 5,
  reporters: 5,
  excluded: 0,
  dispersionPercent: 0.11,
  confidence: 'high',
};

/** The server's environment: the reporter listener on a free port, the quorum at the five desks. */
export const STREET_RATE_ENV = { MDS_REPORT_PORT: '0', MDS_CONSENSUS_QUORUM: String(STREET_BUYS.length) };

/**
 * Publishes EUR's parallel rate from the five desks, and resolves with the record
 * `/v1/rates/latest` serves once it serves it, read with `key`. The store's latest
 * parallel EUR must be older than now (a sample ending yesterday), or it stays the latest.
 */
export async function publishStreetRate(server: ServerProcess, db: string, key: string) {
  const reporterApi = await bannerUrl(server, /Reporter API: (\S+)\/report\/v1/);
  for (const [i, buy] of STREET_BUYS.entries()) {
    const org = await mds(['organisations', 'create', '--name', `EUR desk ${i}`, '--json'], { db });
    expect(org.status, org.stderr).toBe(0);
    const reporter = await mds(
      ['reporters', 'create', '--organisation', org.json().organisation.id, '--label', `Desk ${i}`].concat([
        '--markets',
        'EUR',
        '--json',
      ]),
      { db },
    );
    expect(reporter.status, reporter.stderr).toBe(0);
    const res = await fetch(`${reporterApi}/report/v1/quotes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reporter.json().token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ market: 'EUR', buy, sell: buy + 2 }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
  }
  let served: unknown;
  return waitFor(
    async () => {
      const res = await getJson(
        `${new URL(server.url).origin}/v1/rates/latest?source=parallel&currency=EUR`,
        key,
      );
      served = res.body;
      const record = res.status === 200 ? res.body.data[0] : undefined;
      return record?.quality?.method === 'consensus' ? record : undefined;
    },
    { timeout: 10_000, interval: 100, what: () => `the consensus served by /v1: ${JSON.stringify(served)}` },
  );
}

/** Yesterday's UTC day (YYYY-MM-DD), for `mds seed sample --end-date`. */
export const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
