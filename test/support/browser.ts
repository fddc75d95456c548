/**
 * Debian's chromium driven by playwright-core, for the browser tests of the pages
 * (test/browser/): where it is, how it is launched, and the page's requests.
 */
import { existsSync } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Debian's chromium, or null when it is absent: the browser tests then skip,
 * saying how to install it, except in a run that requires them (.ci/run sets
 * MDS_TEST_REQUIRE_BROWSER=1), where a missing browser fails the run instead
 * of passing it untested.
 */
export function findChromium(): string | null {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  const fix = 'install it with `apt-get install -y chromium` (Debian)';
  if (process.env.MDS_TEST_REQUIRE_BROWSER === '1')
    throw new Error(`${CHROMIUM} is absent and this run requires the browser tests: ${fix}`);
  console.warn(
    `browser tests skipped: ${CHROMIUM} is absent; ${fix}, or set MDS_TEST_REQUIRE_BROWSER=1 to fail`,
  );
  return null;
}

/** Headless, offline: no background traffic of the browser's own. */
export async function launchChromium(executablePath: string): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface SeenRequest {
  url: string;
  authorization: string | undefined;
  status?: number;
}

/** Every request the pages of `context` make, with the status of its answer once it arrives. */
export function recordRequests(context: BrowserContext): SeenRequest[] {
  const seen: SeenRequest[] = [];
  context.on('request', (request) => {
    seen.push({ url: request.url(), authorization: request.headers()['authorization'] });
  });
  context.on('response', (response) => {
    const entry = seen.findLast((r) => r.url === response.url() && r.status === undefined);
    if (entry) entry.status = response.status();
  });
  return seen;
}

/** The URLs that left `origin` (data: URLs stay in the page). */
export const offOrigin = (seen: { url: string }[], origin: string) =>
  seen.map((r) => r.url).filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
