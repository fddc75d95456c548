/*
 * The latest rates of the chosen currency in every source family the key may
 * read, with the change since the previous day.
 *
 * The change (docs/decisions.md, 66) is the latest observation minus the newest
 * observation of an earlier UTC day within the 7 days before, read from
 * /v1/rates/history; the page computes it, the API does not. Without the history
 * entitlement of a family its change is not shown, and the panel says why.
 */
import { api, explain, isDenied, noteAccess } from './api.js';
import { $, instant, rate, signedPercent, signedRate, t } from './format.js';
import { appendQuality, renderQualityNote } from './quality.js';
import { historyEntitlement, latestEntitlement, may, sources, state } from './state.js';

const DAY_MS = 86_400_000;
/** Days before the latest observation's day searched for the previous one (a weekend, a holiday). */
const CHANGE_LOOKBACK_DAYS = 7;

const round4 = (n) => Math.round(n * 10_000) / 10_000;
const utcDay = (iso) => new Date(iso).toISOString().slice(0, 10);

/** The newest record of a UTC day before the day of `latestIso`, or null. */
export function previousDayRecord(records, latestIso) {
  const day = utcDay(latestIso);
  let best = null;
  for (const r of records) {
    if (utcDay(r.updatedAt) < day && (!best || Date.parse(r.updatedAt) > Date.parse(best.updatedAt)))
      best = r;
  }
  return best;
}

/** Loads the latest record of each family the key may read, then the history its change needs. */
export async function loadLatest(currency, run, onUpdate) {
  const rows = sources()
    .filter((s) => may(latestEntitlement(s)))
    .map((source) => ({
      source,
      res: null,
      history: null,
    }));
  state.latest = { currency, rows };
  onUpdate();
  await Promise.all(
    rows.map(async (row) => {
      const query = new URLSearchParams({ source: row.source, currency });
      row.res = await api(`/v1/rates/latest?${query}`);
      if (run !== state.dataRun) return;
      noteAccess(`/v1/rates/latest?source=${row.source}`, `what.latest.${row.source}`, {}, row.res);
      onUpdate();
      const record = recordOf(row, currency);
      if (!record || !may(historyEntitlement(row.source))) return;
      const to = utcDay(record.updatedAt);
      const from = new Date(Date.parse(to) - CHANGE_LOOKBACK_DAYS * DAY_MS).toISOString().slice(0, 10);
      const window = new URLSearchParams({ currency, source: row.source, from, to, limit: '1000' });
      row.history = await api(`/v1/rates/history?${window}`);
      if (run !== state.dataRun) return;
      noteAccess(
        `/v1/rates/history?source=${row.source}&from=${from}&to=${to}`,
        `what.history.${row.source}`,
        { currency },
        row.history,
      );
      onUpdate();
    }),
  );
}

const recordOf = (row, currency) =>
  row.res?.ok ? (row.res.body.data.find((d) => d.currency === currency) ?? null) : null;

/** The rows the key may read (a 403 folds a row: the "not shown" line names it). */
const readable = (l) => l.rows.filter((row) => may(latestEntitlement(row.source)));

export const latestReadable = () => state.latest !== null && readable(state.latest).length > 0;

/** A table cell with its text and data attributes (the converter's rows too). */
export function cell(tag, text, data = {}) {
  const node = document.createElement(tag);
  node.textContent = text;
  Object.assign(node.dataset, data);
  return node;
}

function changeCells(row, record) {
  const cells = ['buy', 'sell'].map((k) =>
    cell('td', '', { side: k, label: t(k === 'buy' ? 'changeBuy' : 'changeSell') }),
  );
  for (const c of cells) c.className = 'change';
  const history = row.history;
  if (!may(historyEntitlement(row.source))) {
    for (const c of cells) c.textContent = '—';
  } else if (!history) {
    for (const c of cells) c.textContent = '…';
  } else if (!history.ok) {
    for (const c of cells) c.textContent = '—';
    cells[0].title = explain(history, `what.history.${row.source}`, { currency: record.currency });
  } else {
    const previous = previousDayRecord(history.body.data, record.updatedAt);
    for (const c of cells) {
      const k = c.dataset.side;
      if (!previous) {
        c.textContent = t('changeNone');
        continue;
      }
      const amount = round4(record[k] - previous[k]);
      const pct = round4((amount / previous[k]) * 100);
      Object.assign(c.dataset, { value: String(amount), percent: String(pct), since: previous.updatedAt });
      c.textContent = t('changeValue', { amount: signedRate(amount), percent: signedPercent(pct) });
    }
  }
  return cells;
}

export function renderLatest() {
  const l = state.latest;
  if (!l) return;
  const rows = readable(l);
  const withChange = rows.some((row) => may(historyEntitlement(row.source)));
  const messages = [];
  const trs = [];
  for (const row of rows) {
    if (!row.res) continue;
    const family = t(`family.${row.source}`);
    const record = recordOf(row, l.currency);
    if (!row.res.ok && !isDenied(row.res)) messages.push(explain(row.res, `what.latest.${row.source}`));
    else if (row.res.ok && !record) messages.push(t('noLatest', { family, currency: l.currency }));
    if (!record) continue;
    const tr = document.createElement('tr');
    tr.dataset.source = row.source;
    const th = cell('th', family);
    th.scope = 'row';
    appendQuality(th, record.quality);
    tr.append(
      th,
      // data-label: the column's name, which a phone shows beside each figure (charts.css).
      cell('td', rate(record.buy), { value: String(record.buy), side: 'buy', label: t('buy') }),
      cell('td', rate(record.sell), { value: String(record.sell), side: 'sell', label: t('sell') }),
      ...(withChange ? changeCells(row, record) : []),
      cell('td', instant(record.updatedAt), { value: record.updatedAt, label: t('updated') }),
    );
    trs.push(tr);
  }
  $('latest-message').textContent = messages.join(' ');
  $('latest-caption').textContent = t('latestCaption', { currency: l.currency });
  $('latest-rows').replaceChildren(...trs);
  $('latest-table').hidden = trs.length === 0;
  renderQualityNote();
  for (const th of document.querySelectorAll('#latest-table th.change')) th.hidden = !withChange;
  const partial = withChange && rows.some((row) => !may(historyEntitlement(row.source)));
  $('latest-note').textContent = !withChange ? t('changeOmitted') : partial ? t('changePartial') : '';
  $('latest-note').dataset.change = withChange ? (partial ? 'partial' : 'shown') : 'omitted';
}
