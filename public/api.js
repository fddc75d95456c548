/*
 * Calls to this origin's /v1 API with the visitor's key, and what each answer means.
 *
 * The key is sent only as `Authorization: Bearer` to /v1 on this origin: `api()`
 * refuses any other address.
 */
import { $, t } from './format.js';
import { state } from './state.js';

/** GET one /v1 path of this origin with the key; resolves to the status, body and error. */
export async function api(path, cache = 'default') {
  if (!path.startsWith('/v1/')) throw new Error('the charts page only calls this origin’s /v1 API');
  let res;
  try {
    res = await fetch(path, {
      headers: { authorization: `Bearer ${state.key}` },
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      cache,
    });
  } catch {
    return { ok: false, status: 0, body: null, error: null, retryAfter: null };
  }
  let body = null;
  try {
    body = await res.json();
  } catch {
    // A 304 revalidated by the browser arrives as 200 with the cached body; anything else without JSON is an error.
  }
  noteQuota(res.headers);
  const error = body?.error ?? null;
  if (res.status === 403 && error?.code === 'insufficient_scope') {
    for (const d of error.details ?? []) if (d.entitlement) state.denied.add(d.entitlement);
  }
  return {
    ok: res.ok && body !== null,
    status: res.status,
    body,
    error,
    retryAfter: res.headers.get('retry-after'),
  };
}

/**
 * The families this service publishes, from `GET /status` (no key, nothing
 * consumed; docs/decisions.md 99): the others get no panel, no request and no
 * warning. Without an answer, all of them.
 */
export async function loadPublished() {
  try {
    const res = await fetch('/status', {
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      cache: 'no-store',
    });
    const families = (await res.json()).data.families;
    state.published = new Set(Object.keys(families).filter((f) => families[f].published !== false));
  } catch {
    state.published = null;
  }
}

/** Follows `meta.nextCursor` until the last page; stops at the first failure. */
export async function allPages(path, params) {
  const records = [];
  let cursor = null;
  for (let page = 0; page < 100; page++) {
    const query = new URLSearchParams({ ...params, limit: '1000' });
    if (cursor) query.set('cursor', cursor);
    const res = await api(`${path}?${query}`);
    if (!res.ok) return { ...res, records };
    records.push(...res.body.data);
    cursor = res.body.meta.nextCursor;
    if (!cursor) return { ...res, records };
  }
  return { ok: true, status: 200, records };
}

export const isDenied = (res) => res.status === 403 && res.error?.code === 'insufficient_scope';

/**
 * /v1/me answered, or refused only for want of `usage:read`: the key is good and the
 * panels load. Anything else (a refused key, an inactive grant, a 429, no answer)
 * is the one message of the page.
 */
export const keyAccepted = (me) => me !== null && (me.ok || isDenied(me));

/** One sentence for a failed call, naming what the key may not do and why. */
export function explain(res, whatKey, params = {}) {
  // Sentences in the reader's language: the API's codes stay in "What this page read with the key".
  const what = t(whatKey, params);
  const seconds = res.retryAfter ?? t('aFew');
  if (isDenied(res)) {
    return t('explain.denied', { what, entitlement: res.error.details?.[0]?.entitlement ?? '?' });
  }
  if (res.status === 403) return t('explain.inactive', { what });
  if (res.status === 401) {
    return t('explain.refused', { message: res.error?.message ?? t('explain.refusedNoMessage') });
  }
  if (res.status === 429) return t('explain.rateLimited', { what, seconds });
  if (res.status === 404) return t('explain.notFound', { what });
  if (res.status === 0) return t('explain.unreachable', { what });
  return t('explain.failed', { what });
}

function accessStatus(res) {
  if (res.ok || res.status === 404) return 'allowed';
  if (res.status === 403) return isDenied(res) ? 'denied' : 'inactive';
  if (res.status === 401) return 'unauthorized';
  if (res.status === 429) return 'rate-limited';
  return 'error';
}

/** Records one request's answer for "What this page read with the key". */
export function noteAccess(endpoint, whatKey, params, res) {
  state.access.set(endpoint, { whatKey, params, res });
  renderAccess();
}

/** One line per endpoint, in the order of the answers. */
export function renderAccess() {
  const items = [...state.access].map(([endpoint, { whatKey, params, res }]) => {
    const item = document.createElement('li');
    item.id = `access-${endpoint.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}`;
    item.dataset.endpoint = endpoint;
    item.dataset.testid = item.id;
    const status = accessStatus(res);
    const entitlement = res.error?.details?.[0]?.entitlement;
    item.dataset.status = status;
    if (entitlement) item.dataset.entitlement = entitlement;
    const code = res.error?.code ?? `HTTP ${res.status}`;
    const seconds = res.retryAfter ?? t('aFew');
    const verdict = {
      allowed: () => t('access.allowed'),
      denied: () => t('access.denied', { entitlement: entitlement ?? '?' }),
      inactive: () => t('access.inactive', { code }),
      unauthorized: () => t('access.unauthorized', { code }),
      'rate-limited': () => t('access.rateLimited', { code, seconds }),
      error: () => (res.status ? t('access.failed', { status: res.status, code }) : t('access.unreachable')),
    }[status]();
    item.textContent = t('access.line', { what: t(whatKey, params), endpoint, verdict });
    return item;
  });
  $('access-list').replaceChildren(...items);
}

function noteQuota(headers) {
  const remaining = headers.get('x-monthly-quota-remaining');
  const reset = headers.get('x-monthly-quota-reset');
  if (remaining === null || reset === null) return;
  const value = Number(remaining);
  if (!state.quota || state.quota.reset !== reset || value < state.quota.remaining) {
    state.quota = { remaining: value, reset };
  }
  state.onQuota?.();
}
