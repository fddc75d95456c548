/*
 * The charts page: plain browser JavaScript, no dependency, inline SVG.
 *
 * Every figure comes from this origin's public /v1 API, read with the key the
 * visitor pastes. The key lives in memory (and in sessionStorage only when the
 * visitor asks), and is sent only as `Authorization: Bearer` to /v1 on this
 * origin: `api()` refuses any other address.
 */

const KEY_STORE = 'mds-charts-key';
const SVG_NS = 'http://www.w3.org/2000/svg';
const DAY_MS = 86_400_000;
const FALLBACK_CURRENCIES = ['EUR', 'USD', 'GBP', 'CAD'];
const PURITIES = ['24K', '21K', '18K'];

const $ = (id) => document.getElementById(id);

const state = {
  key: '',
  /** Bumped on every new key and every reload: answers to older requests are dropped. */
  keyRun: 0,
  dataRun: 0,
  /** Smallest X-Monthly-Quota-Remaining seen for the current period. */
  quota: null,
  me: null,
  /** Currency and window of the last load. */
  choice: '',
  rates: null,
  premiumHistory: null,
  goldHistory: null,
};

// ---- API access ---------------------------------------------------------------

/** GET one /v1 path of this origin with the key; resolves to the status, body and error. */
async function api(path, cache = 'default') {
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
  return {
    ok: res.ok && body !== null,
    status: res.status,
    body,
    error: body?.error ?? null,
    retryAfter: res.headers.get('retry-after'),
  };
}

/** Follows `meta.nextCursor` until the last page; stops at the first failure. */
async function allPages(path, params) {
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

/** One sentence for a failed call, naming what the key may not do and why. */
function explain(res, what) {
  const code = res.error?.code ?? (res.status ? `HTTP ${res.status}` : 'network error');
  if (res.status === 403 && code === 'insufficient_scope') {
    const entitlement = res.error.details?.[0]?.entitlement ?? 'required';
    return `This key may not read ${what}: it lacks the ${entitlement} entitlement.`;
  }
  if (res.status === 403) return `This key’s grant is not active (${code}), so it may not read ${what}.`;
  if (res.status === 401) return `The API refused the key (${code}): ${res.error?.message ?? 'check it.'}`;
  if (res.status === 429) {
    return `Too many requests for ${what} (${code}). Retry after ${res.retryAfter ?? 'a few'} seconds.`;
  }
  if (res.status === 404) return `No ${what} is stored (${code}).`;
  if (res.status === 0) return `The API could not be reached for ${what}.`;
  return `The API could not answer for ${what} (${res.status} ${code}).`;
}

function accessStatus(res) {
  if (res.ok || res.status === 404) return 'allowed';
  if (res.status === 403) return res.error?.code === 'insufficient_scope' ? 'denied' : 'inactive';
  if (res.status === 401) return 'unauthorized';
  if (res.status === 429) return 'rate-limited';
  return 'error';
}

/** One line per endpoint in "What this key may read", replaced on each call. */
function noteAccess(endpoint, what, res) {
  const id = `access-${endpoint.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}`;
  let item = $(id);
  if (!item) {
    item = document.createElement('li');
    item.id = id;
    item.dataset.endpoint = endpoint;
    item.dataset.testid = id;
    $('access-list').append(item);
  }
  const status = accessStatus(res);
  const entitlement = res.error?.details?.[0]?.entitlement;
  item.dataset.status = status;
  if (entitlement) item.dataset.entitlement = entitlement;
  else delete item.dataset.entitlement;
  const code = res.error?.code ?? `HTTP ${res.status}`;
  const verdict = {
    allowed: 'allowed',
    denied: `not allowed, missing entitlement ${entitlement ?? '(not named)'}`,
    inactive: `not allowed, the grant is not active (${code})`,
    unauthorized: `key refused (${code})`,
    'rate-limited': `rate limited (${code}), retry after ${res.retryAfter ?? 'a few'} seconds`,
    error: res.status ? `failed (${res.status} ${code})` : 'the API could not be reached',
  }[status];
  item.textContent = `${what} (${endpoint}): ${verdict}`;
}

function noteQuota(headers) {
  const remaining = headers.get('x-monthly-quota-remaining');
  const reset = headers.get('x-monthly-quota-reset');
  if (remaining === null || reset === null) return;
  const value = Number(remaining);
  if (!state.quota || state.quota.reset !== reset || value < state.quota.remaining) {
    state.quota = { remaining: value, reset };
  }
  renderAccount();
}

// ---- Loading ------------------------------------------------------------------

function windowDates(days) {
  const now = new Date();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const iso = (ms) => new Date(ms).toISOString().slice(0, 10);
  return { from: iso(today - (days - 1) * DAY_MS), to: iso(today) };
}

async function connect(event) {
  event?.preventDefault();
  const key = $('api-key').value.trim();
  if (!key) return;
  state.key = key;
  if ($('remember').checked) sessionStorage.setItem(KEY_STORE, key);
  else sessionStorage.removeItem(KEY_STORE);
  const run = ++state.keyRun;
  state.quota = null;
  state.me = null;
  $('access-list').replaceChildren();
  $('me-message').textContent = '';
  const [me, assets, gold] = await Promise.all([
    api('/v1/me', 'no-store'),
    api('/v1/assets?type=currency'),
    api('/v1/gold/latest'),
  ]);
  if (run !== state.keyRun) return;
  noteAccess('/v1/me', 'the account and usage', me);
  noteAccess('/v1/assets', 'the currency list', assets);
  noteAccess('/v1/gold/latest', 'the latest gold references', gold);
  state.me = me;
  renderAccount();
  fillCurrencies(assets);
  renderGoldLatest(gold);
  await loadData(true);
}

/** Loads what depends on the currency and the window; `force` reloads the same choice (new key). */
async function loadData(force = false) {
  const currency = $('currency').value;
  if (!state.key || !currency) return;
  const { from, to } = windowDates(Number($('window').value));
  const choice = `${currency}|${from}|${to}`;
  // Selecting the option already shown costs no quota.
  if (!force && choice === state.choice) return;
  state.choice = choice;
  const run = ++state.dataRun;
  for (const id of ['rates', 'premium-history', 'premium', 'gold']) $(id).dataset.state = 'loading';
  const rates = Promise.all(
    ['parallel', 'official'].map((source) => allPages('/v1/rates/history', { currency, source, from, to })),
  ).then(([parallel, official]) => {
    if (run !== state.dataRun) return;
    noteAccess('/v1/rates/history?source=parallel', 'parallel rate history', parallel);
    noteAccess('/v1/rates/history?source=official', 'official rate history', official);
    state.rates = { currency, from, to, parallel, official };
    renderRates();
    $('rates').dataset.state = 'ready';
  });
  // The API pairs each day's parallel and official rates and summarises the whole window itself.
  const premiumHistory = allPages('/v1/market/premium/history', { currency, from, to }).then((res) => {
    if (run !== state.dataRun) return;
    noteAccess('/v1/market/premium/history', 'the premium history', res);
    state.premiumHistory = { currency, from, to, res };
    renderPremiumHistory();
    $('premium-history').dataset.state = 'ready';
  });
  const premium = api(`/v1/market/premium?currency=${encodeURIComponent(currency)}`).then((res) => {
    if (run !== state.dataRun) return;
    noteAccess('/v1/market/premium', 'the market premium', res);
    renderPremium(currency, res);
    $('premium').dataset.state = 'ready';
  });
  const gold = allPages('/v1/gold/history', { from, to }).then((res) => {
    if (run !== state.dataRun) return;
    noteAccess('/v1/gold/history', 'the gold history', res);
    state.goldHistory = { from, to, res };
    renderGoldHistory();
    $('gold').dataset.state = 'ready';
  });
  await Promise.all([rates, premiumHistory, premium, gold]);
}

function forget() {
  state.key = '';
  state.keyRun++;
  state.dataRun++;
  state.choice = '';
  sessionStorage.removeItem(KEY_STORE);
  $('api-key').value = '';
  $('remember').checked = false;
  $('me-message').textContent = 'The key was forgotten: it is no longer in this page or in sessionStorage.';
}

// ---- Rendering: text ------------------------------------------------------------

const number = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 4 });

function setFigure(id, value, unit) {
  const cell = $(id);
  cell.dataset.value = String(value);
  cell.textContent = `${number(value)}${unit}`;
}

function renderAccount() {
  const me = state.me;
  if (!me) return;
  if (!me.ok) $('me-message').textContent = explain(me, 'the account and usage');
  const usage = me.ok ? me.body.data.usage : null;
  $('me').hidden = !usage && !state.quota;
  $('me-plan').textContent = me.ok ? me.body.data.grant.plan : 'not shown (this key may not read /v1/me)';
  const remaining = state.quota?.remaining ?? usage?.requestsRemaining;
  const limit = usage ? ` of ${number(usage.requestLimit)}` : '';
  $('me-remaining').textContent =
    remaining === undefined ? 'unknown' : `${number(remaining)}${limit} requests`;
  $('me-reset').textContent = state.quota?.reset ?? usage?.resetAt ?? 'unknown';
}

function fillCurrencies(res) {
  const select = $('currency');
  const previous = select.value || 'EUR';
  const assets = res.ok
    ? res.body.data
    : FALLBACK_CURRENCIES.map((code) => ({ code, names: { en: '(name not available)' } }));
  select.replaceChildren(
    ...assets.map((a) => new Option(`${a.code} – ${a.names.en}`, a.code, false, a.code === previous)),
  );
  if (!assets.some((a) => a.code === previous) && assets.length > 0) select.value = assets[0].code;
  select.disabled = false;
}

function renderPremium(currency, res) {
  const item = res.ok ? res.body.data.find((d) => d.currency === currency) : null;
  $('premium-table').hidden = !item;
  if (!res.ok) $('premium-message').textContent = explain(res, 'the market premium');
  else if (!item) {
    $('premium-message').textContent =
      `No premium for ${currency}: the API has no parallel or no official rate to compare.`;
  } else $('premium-message').textContent = '';
  if (!item) return;
  $('premium-caption').textContent =
    `${currency}: parallel of ${item.parallel.updatedAt}, official of ${item.official.updatedAt}`;
  for (const side of ['buy', 'sell']) {
    setFigure(`parallel-${side}`, item.parallel[side], '');
    setFigure(`official-${side}`, item.official[side], '');
    setFigure(`premium-${side}-amount`, item.premium[side].amount, '');
    setFigure(`premium-${side}-percent`, item.premium[side].percent, ' %');
  }
}

function renderGoldLatest(res) {
  $('gold-table').hidden = !res.ok;
  $('gold-message').textContent = res.ok ? '' : explain(res, 'the latest gold references');
  if (!res.ok) return;
  $('gold-rows').replaceChildren(
    ...res.body.data.map((g) => {
      const row = document.createElement('tr');
      row.dataset.purity = g.purity;
      row.dataset.testid = `gold-${g.purity}`;
      const cells = [g.purity, number(g.buy), number(g.sell), g.updatedAt];
      row.append(
        ...cells.map((text, i) => {
          const cell = document.createElement(i === 0 ? 'th' : 'td');
          if (i === 0) cell.scope = 'row';
          if (i === 1 || i === 2) cell.dataset.value = String(i === 1 ? g.buy : g.sell);
          cell.textContent = text;
          return cell;
        }),
      );
      return row;
    }),
  );
}

const side = () => (document.querySelector('input[name="side"]:checked')?.value === 'sell' ? 'sell' : 'buy');

function renderRates() {
  const r = state.rates;
  if (!r) return;
  const s = side();
  const messages = [];
  const series = [];
  for (const source of ['parallel', 'official']) {
    const res = r[source];
    const name = source === 'parallel' ? 'Parallel' : 'Official';
    if (!res.ok) messages.push(explain(res, `the ${source} history of ${r.currency}`));
    else if (res.records.length === 0) messages.push(`No ${source} rate for ${r.currency} in this window.`);
    series.push({
      id: source,
      name,
      className: `series-${source}`,
      points: res.ok ? toPoints(res.records, s) : [],
    });
  }
  $('rates-message').textContent = messages.join(' ');
  const described = series
    .filter((x) => x.points.length > 0)
    .map((x) => `${x.name} from ${number(x.points[0].v)} to ${number(x.points.at(-1).v)} DZD`);
  drawChart($('rates-chart'), {
    series,
    from: r.from,
    to: r.to,
    yTitle: `DZD per 1 ${r.currency} (${s})`,
    label:
      `${r.currency} ${s} rates in DZD from ${r.from} to ${r.to}. ` +
      (described.length > 0 ? `${described.join('; ')}.` : 'No data.'),
  });
}

/** Figures the API computed (meta.summary), shown as they are: nothing is recomputed here. */
function renderPremiumHistory() {
  const p = state.premiumHistory;
  if (!p) return;
  const s = side();
  const { res, currency, from, to } = p;
  const summary = res.ok ? res.body.meta.summary : null;
  if (!res.ok && res.status === 404) {
    $('premium-history-message').textContent =
      `No premium history for ${currency}: the API has no parallel or no official rate to compare.`;
  } else if (!res.ok) $('premium-history-message').textContent = explain(res, 'the premium history');
  else if (!summary) $('premium-history-message').textContent = `No premium for ${currency} in this window.`;
  else $('premium-history-message').textContent = '';

  $('premium-summary').hidden = !summary;
  if (summary) {
    $('premium-summary-caption').textContent = `${currency}, ${from} to ${to}`;
    $('summary-days').dataset.value = String(summary.days);
    $('summary-days').textContent = `${number(summary.days)} days with a parallel and an official rate`;
    for (const k of ['buy', 'sell']) {
      for (const end of ['min', 'max']) {
        const cell = $(`summary-${k}-${end}`);
        cell.dataset.value = String(summary[k][end].percent);
        cell.dataset.date = summary[k][end].date;
        cell.textContent = `${number(summary[k][end].percent)} % on ${summary[k][end].date}`;
      }
      setFigure(`summary-${k}-mean`, summary[k].mean, ' %');
    }
  }

  // Each point at the time of the day's parallel observation, as on the rates chart.
  const items = res.ok ? res.records : [];
  const points = items
    .map((item) => ({ t: Date.parse(item.parallel.updatedAt), v: item.premium[s].percent, date: item.date }))
    .sort((a, b) => a.t - b.t);
  const extreme = (end, className) => {
    const { percent, date } = summary[s][end];
    const day = points.find((x) => x.date === date);
    const label = `${end === 'min' ? 'lowest' : 'highest'} ${number(percent)} %`;
    return { t: day ? day.t : Date.parse(`${date}T12:00:00Z`), v: percent, label, className, date };
  };
  drawChart($('premium-chart'), {
    series: [
      { id: 'premium', name: `${s === 'buy' ? 'Buy' : 'Sell'} %`, className: 'series-premium', points },
    ],
    marks: summary && points.length > 0 ? [extreme('min', 'mark-min'), extreme('max', 'mark-max')] : [],
    rules:
      summary && points.length > 0
        ? [{ v: summary[s].mean, label: `mean ${number(summary[s].mean)} %`, className: 'rule-mean' }]
        : [],
    from,
    to,
    yTitle: `Premium over official, % (${s})`,
    label: summary
      ? `${currency} ${s} premium of the parallel rate over the official rate, in percent, from ${from} to ${to}: ` +
        `${summary.days} days, lowest ${number(summary[s].min.percent)} % on ${summary[s].min.date}, ` +
        `highest ${number(summary[s].max.percent)} % on ${summary[s].max.date}, mean ${number(summary[s].mean)} %.`
      : `No premium history for ${currency} from ${from} to ${to}.`,
  });
}

function renderGoldHistory() {
  const g = state.goldHistory;
  if (!g) return;
  const s = side();
  $('gold-history-message').textContent = g.res.ok ? '' : explain(g.res, 'the gold history');
  const series = PURITIES.map((purity) => ({
    id: purity,
    name: purity,
    className: `gold-${purity}`,
    points: g.res.ok
      ? toPoints(
          g.res.records.filter((x) => x.purity === purity),
          s,
        )
      : [],
  }));
  drawChart($('gold-chart'), {
    series,
    from: g.from,
    to: g.to,
    yTitle: `DZD per gram (${s})`,
    label: g.res.ok
      ? `Gold ${s} references per gram in DZD from ${g.from} to ${g.to}: ${series
          .filter((x) => x.points.length > 0)
          .map((x) => `${x.name} from ${number(x.points[0].v)} to ${number(x.points.at(-1).v)}`)
          .join('; ')}.`
      : 'Gold history not available to this key.',
  });
}

const toPoints = (records, s) =>
  records.map((r) => ({ t: Date.parse(r.updatedAt), v: r[s] })).sort((a, b) => a.t - b.t);

// ---- Rendering: SVG -------------------------------------------------------------

function el(name, attributes, text) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Round tick step: 1, 2 or 5 times a power of ten. */
function niceStep(span, count) {
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = raw / power;
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * power;
}

/**
 * Lines over a UTC date axis; `marks` are labelled dots (lowest, highest), `rules` labelled
 * horizontal lines (the mean).
 */
function drawChart(svg, { series, marks = [], rules = [], from, to, yTitle, label }) {
  const { width, height } = svg.viewBox.baseVal;
  const m = { left: 70, right: 72, top: 22, bottom: 46 };
  const values = series.flatMap((x) => x.points.map((p) => p.v));
  svg.replaceChildren();
  svg.setAttribute('aria-label', label);
  svg.dataset.series = String(series.filter((x) => x.points.length > 0).length);
  if (values.length === 0) {
    svg.append(
      el('text', { x: width / 2, y: height / 2, 'text-anchor': 'middle', class: 'tick' }, 'No data'),
    );
    return;
  }
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  const pad = (hi - lo) * 0.06 || Math.abs(hi) * 0.01 || 1;
  lo -= pad;
  hi += pad;
  const t0 = Date.parse(`${from}T00:00:00Z`);
  const t1 = Date.parse(`${to}T23:59:59.999Z`);
  const x = (t) => m.left + ((t - t0) / (t1 - t0)) * (width - m.left - m.right);
  const y = (v) => height - m.bottom - ((v - lo) / (hi - lo)) * (height - m.top - m.bottom);
  const f = (n) => n.toFixed(1);

  const axis = el('g', { class: 'axis' });
  const step = niceStep(hi - lo, 5);
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) {
    axis.append(el('line', { x1: m.left, x2: width - m.right, y1: f(y(v)), y2: f(y(v)) }));
    axis.append(
      el('text', { x: m.left - 6, y: f(y(v) + 4), 'text-anchor': 'end', class: 'y-tick' }, number(v)),
    );
  }
  const days = Math.round((t1 - t0) / DAY_MS);
  const ticks = Math.min(6, days);
  for (let i = 0; i <= ticks; i++) {
    const t = t0 + Math.round((i * days) / ticks) * DAY_MS;
    const date = new Date(Math.min(t, t1)).toISOString().slice(0, 10);
    axis.append(el('line', { x1: f(x(t)), x2: f(x(t)), y1: height - m.bottom, y2: height - m.bottom + 5 }));
    axis.append(
      el('text', { x: f(x(t)), y: height - m.bottom + 18, 'text-anchor': 'middle', class: 'x-tick' }, date),
    );
  }
  axis.append(
    el(
      'text',
      {
        x: (width - m.right + m.left) / 2,
        y: height - 6,
        'text-anchor': 'middle',
        class: 'axis-title x-title',
      },
      'Date (UTC)',
    ),
    el(
      'text',
      {
        x: 14,
        y: m.top + (height - m.top - m.bottom) / 2,
        'text-anchor': 'middle',
        class: 'axis-title y-title',
        transform: `rotate(-90 14 ${m.top + (height - m.top - m.bottom) / 2})`,
      },
      yTitle,
    ),
  );
  svg.append(axis);

  for (const r of rules) {
    svg.append(
      el('line', {
        x1: m.left,
        x2: width - m.right,
        y1: f(y(r.v)),
        y2: f(y(r.v)),
        class: `rule ${r.className}`,
        'data-value': r.v,
      }),
      el('text', { x: m.left + 4, y: f(y(r.v) - 4), class: `rule-label ${r.className}-label` }, r.label),
    );
  }
  for (const s of series) {
    if (s.points.length === 0) continue;
    const d = s.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${f(x(p.t))} ${f(y(p.v))}`).join(' ');
    svg.append(
      el('path', { d, class: `series ${s.className}`, 'data-series': s.id, 'data-points': s.points.length }),
    );
    const last = s.points.at(-1);
    svg.append(
      el(
        'text',
        { x: f(x(last.t) + 6), y: f(y(last.v) + 4), class: `series-label ${s.className}-label` },
        s.name,
      ),
    );
  }
  for (const k of marks) {
    const cx = x(k.t);
    const anchor = cx < m.left + 60 ? 'start' : cx > width - m.right - 60 ? 'end' : 'middle';
    // The highest label above its dot, the lowest below, so neither covers the line.
    const dy = k.className === 'mark-min' ? 16 : -8;
    svg.append(
      el('circle', {
        cx: f(cx),
        cy: f(y(k.v)),
        r: 4,
        class: `mark ${k.className}`,
        'data-value': k.v,
        'data-date': k.date,
      }),
      el('text', { x: f(cx), y: f(y(k.v) + dy), 'text-anchor': anchor, class: 'mark-label' }, k.label),
    );
  }
}

// ---- Wiring ---------------------------------------------------------------------

$('key-form').addEventListener('submit', connect);
$('forget').addEventListener('click', forget);
$('controls').addEventListener('submit', (event) => event.preventDefault());
$('currency').addEventListener('change', () => loadData());
$('window').addEventListener('change', () => loadData());
for (const radio of document.querySelectorAll('input[name="side"]')) {
  radio.addEventListener('change', () => {
    renderRates();
    renderPremiumHistory();
    renderGoldHistory();
  });
}

const stored = sessionStorage.getItem(KEY_STORE);
if (stored) {
  $('api-key').value = stored;
  $('remember').checked = true;
  connect();
}
