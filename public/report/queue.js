/*
 * Quotes on their way, and the calls to /report/v1 (docs/decisions.md 120).
 *
 * Every quote is first written to a queue in localStorage with its own
 * Idempotency-Key and its exact body, then sent; it leaves the queue only
 * when the service has answered for it (stored, or refused for good). A quote
 * typed without network, or whose answer was lost, is sent again later under
 * the same key with the same body, so the service stores it once and replays
 * its first answer to a retry.
 */

const TOKEN_STORE = 'mds-report-token';
const QUEUE_STORE = 'mds-report-queue';
const MARKETS_STORE = 'mds-report-me';
const OFFSET_STORE = 'mds-report-clock-offset';

const read = (name, fallback) => {
  try {
    return JSON.parse(localStorage.getItem(name)) ?? fallback;
  } catch {
    return fallback;
  }
};
const write = (name, value) => {
  if (value === null) localStorage.removeItem(name);
  else localStorage.setItem(name, JSON.stringify(value));
};

export const token = () => read(TOKEN_STORE, null);
export const setToken = (value) => write(TOKEN_STORE, value);
/** `/report/v1/me` as last read, so a page opened without network still lists the markets. */
export const lastMe = () => read(MARKETS_STORE, null);
export const setLastMe = (me) => write(MARKETS_STORE, me);
export const pending = () => read(QUEUE_STORE, []);
const remove = (key) =>
  write(
    QUEUE_STORE,
    pending().filter((q) => q.key !== key),
  );

/**
 * An amount as typed on a phone: Arabic-Indic digits, a decimal comma (a
 * French or Arabic keyboard) and spaces are accepted; the API's form (digits,
 * a point, at most 6 decimals) or null.
 */
export function normalizeAmount(typed) {
  const digits = String(typed)
    .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x0660))
    .replace(/[\u06f0-\u06f9]/g, (d) => String(d.charCodeAt(0) - 0x06f0))
    .replace(/[\s\u00a0\u202f]/g, '')
    .replace(/[,\u066b]/, '.');
  return /^\d{1,10}(\.\d{1,6})?$/.test(digits) && Number(digits) > 0 ? digits : null;
}

/**
 * The service's clock, as its answers' Date header tells: a quote's
 * observedAt is the moment it was typed by the service's clock, so a phone
 * set a few minutes fast is not refused, and a quote sent late keeps its time.
 */
let offset = read(OFFSET_STORE, 0);
const serviceNow = () => Date.now() + offset;
function learnClock(res) {
  const date = Date.parse(res.headers.get('date') ?? '');
  if (Number.isNaN(date)) return;
  offset = date - Date.now();
  write(OFFSET_STORE, offset);
}

function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `report-page-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** Puts a quote in the queue; `send` below takes it from there. */
export function enqueue(market, buy, sell) {
  const at = new Date(serviceNow()).toISOString();
  const item = { key: newKey(), typedAt: at, body: { market, buy, sell, observedAt: at } };
  write(QUEUE_STORE, [...pending(), item]);
  return item;
}

/**
 * A call to /report/v1 (a relative URL: the page is /report/). Its answer as
 * `{ status, body, retryAfter }`, or `{ status: 0 }` when the network failed.
 */
export async function call(path, init = {}) {
  let res;
  try {
    res = await fetch(`v1/${path}`, {
      ...init,
      cache: 'no-store',
      headers: { authorization: `Bearer ${token()}`, ...init.headers },
    });
  } catch {
    return { status: 0 };
  }
  learnClock(res);
  let body = null;
  try {
    body = await res.json();
  } catch {
    // A proxy's page, not the API's envelope: the status says enough.
  }
  return { status: res.status, body, retryAfter: Number(res.headers.get('retry-after')) || undefined };
}

/** Answers after which a quote stays queued: no network, a limit, a failure of the service, a token to fix. */
const KEEP = new Set([0, 401, 403, 429, 500, 502, 503, 504]);

let running = null;
let again = false;

/**
 * Sends the queued quotes, oldest first, one request each under its own key.
 * Stops at the first answer that says to wait (the rest would get the same);
 * `report(item, answer)` hears of each answer. One run at a time: a call
 * during a run makes the run go round once more.
 */
export function send(report) {
  if (running) {
    again = true;
    return running;
  }
  // Cleared after the assignment, even when the queue is empty and the run ends at once.
  running = drain(report).finally(() => {
    running = null;
  });
  return running;
}

async function drain(report) {
  do {
    again = false;
    for (const item of pending()) {
      const answer = await call('quotes', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': item.key },
        body: JSON.stringify(item.body),
      });
      const keep =
        KEEP.has(answer.status) ||
        (answer.status === 409 && answer.body?.error?.code === 'idempotency_key_in_progress');
      if (!keep) remove(item.key);
      report(item, answer);
      if (keep) return;
    }
  } while (again);
}

/** Which of the page's reasons an API refusal of a quote gives (strings.js `reason.*`); null when none fits. */
export function reasonOf(detail) {
  const { parameter = '', message = '' } = detail;
  if (parameter.endsWith('market')) return 'market';
  if (parameter.endsWith('observedAt')) return /ahead/.test(message) ? 'clock' : 'tooOld';
  if (/50 %/.test(message)) return 'typo';
  if (/below buy/.test(message)) return 'sellBelowBuy';
  if (parameter.endsWith('buy') || parameter.endsWith('sell')) return 'amount';
  return null;
}
