/*
 * The latest rates of the chosen currency in every source family the key may
 * read, with the change since the previous day.
 *
 * The change is the API's `change` member of each latest record (docs/decisions.md,
 * 122 and 125): the page computes nothing and needs no history for it.
 */
import { api, explain, isDenied, noteAccess } from './api.js';
import { $, instant, rate, signedPercent, signedRate, t } from './format.js';
import { appendQuality, renderQualityNote } from './quality.js';
import { latestEntitlement, may, sources, state } from './state.js';

/** Loads the latest record, with its change, of each family the key may read. */
export async function loadLatest(currency, run, onUpdate) {
  const rows = sources()
    .filter((s) => may(latestEntitlement(s)))
    .map((source) => ({ source, res: null }));
  state.latest = { currency, rows };
  onUpdate();
  await Promise.all(
    rows.map(async (row) => {
      const query = new URLSearchParams({ source: row.source, currency });
      row.res = await api(`/v1/rates/latest?${query}`);
      if (run !== state.dataRun) return;
      noteAccess(`/v1/rates/latest?source=${row.source}`, `what.latest.${row.source}`, {}, row.res);
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

/** The record's `change` as the API serves it: amount and percent of each side, since `change.since`. */
function changeCells(record) {
  const cells = ['buy', 'sell'].map((k) =>
    cell('td', '', { side: k, label: t(k === 'buy' ? 'changeBuy' : 'changeSell') }),
  );
  for (const c of cells) {
    c.className = 'change';
    const k = c.dataset.side;
    if (!record.change) {
      c.textContent = t('changeNone');
      continue;
    }
    const { amount, percent } = record.change[k];
    Object.assign(c.dataset, { value: String(amount), percent: String(percent), since: record.change.since });
    c.textContent = t('changeValue', { amount: signedRate(amount), percent: signedPercent(percent) });
  }
  return cells;
}

export function renderLatest() {
  const l = state.latest;
  if (!l) return;
  const rows = readable(l);
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
      ...changeCells(record),
      cell('td', instant(record.updatedAt), { value: record.updatedAt, label: t('updated') }),
    );
    trs.push(tr);
  }
  $('latest-message').textContent = messages.join(' ');
  $('latest-caption').textContent = t('latestCaption', { currency: l.currency });
  $('latest-rows').replaceChildren(...trs);
  $('latest-table').hidden = trs.length === 0;
  renderQualityNote();
  for (const th of document.querySelectorAll('#latest-table th.change')) th.hidden = false;
  $('latest-note').textContent = '';
  $('latest-note').dataset.change = 'shown';
}
