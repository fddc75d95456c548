/*
 * The converter: an amount of the chosen currency into dinars, or dinars into
 * it, in each family the key may read the latest rates of, as GET /v1/convert
 * answers it (docs/decisions.md 134, 139): the page computes nothing. Typing asks
 * once the reader pauses; an answer already read for the same question is
 * shown again without a request, until the latest rates are reloaded.
 */
import { api, explain, noteAccess } from './api.js';
import { $, money, rate, t } from './format.js';
import { cell } from './latest.js';
import { latestEntitlement, may, state } from './state.js';

/** The pause after the last keystroke before the page asks. */
const DEBOUNCE_MS = 300;
/** The API's rule for `amount` (docs/decisions.md 134), so that a typo costs no request. */
const AMOUNT = /^(?:0|[1-9]\d{0,9})(?:\.\d{1,8})?$/;

/** Answers by request path, for the latest rates loaded last. */
const answers = new Map();
let timer = null;
/** Bumped by every question: an answer to an older one is dropped. */
let asked = 0;
/** The question shown: { currency, toDinars, rows: [{ source, res }] }, or null. */
let shown = null;

const panelState = (value) => {
  $('converter').dataset.state = value;
};

/** The amount typed, as the API takes it, or null when the API would refuse it. */
function amountOf() {
  const text = $('convert-amount').value.trim();
  if (!AMOUNT.test(text)) return null;
  const n = Number(text);
  return n > 0 && n <= 1e9 ? text : null;
}

/** The families with a latest rate of the currency shown in the latest panel. */
function families() {
  const l = state.latest;
  if (!l) return [];
  return l.rows
    .filter((row) => may(latestEntitlement(row.source)) && row.res?.ok)
    .filter((row) => row.res.body.data.some((d) => d.currency === l.currency))
    .map((row) => row.source);
}

/** Asks /v1/convert for each family, then shows the answers; `fresh` after new latest rates. */
export async function convertNow(fresh = false) {
  clearTimeout(timer);
  if (fresh) answers.clear();
  const question = ++asked;
  const l = state.latest;
  const amount = amountOf();
  if (!l || amount === null) {
    shown = null;
    renderConverter();
    panelState('ready');
    return;
  }
  const toDinars = $('convert-direction').value !== 'from';
  const [from, to] = toDinars ? [l.currency, 'DZD'] : ['DZD', l.currency];
  panelState('loading');
  const rows = await Promise.all(
    families().map(async (source) => {
      const path = `/v1/convert?${new URLSearchParams({ from, to, amount, source })}`;
      let res = answers.get(path);
      if (!res) {
        res = await api(path);
        if (res.ok) answers.set(path, res);
        noteAccess(`/v1/convert?source=${source}`, `what.convert.${source}`, {}, res);
      }
      return { source, res };
    }),
  );
  if (question !== asked) return;
  shown = { currency: l.currency, toDinars, rows };
  renderConverter();
  panelState('ready');
}

/** After a keystroke or a new direction: the amount's problem at once, the answers after a pause. */
export function scheduleConvert() {
  clearTimeout(timer);
  asked++;
  if (amountOf() === null) {
    shown = null;
    renderConverter();
    panelState('ready');
    return;
  }
  panelState('loading');
  timer = setTimeout(() => void convertNow(), DEBOUNCE_MS);
}

/** The answers shown, in the page's language: no request. */
export function renderConverter() {
  const l = state.latest;
  if (!l) return;
  const direction = $('convert-direction');
  direction.options[0].textContent = t('toDinars', { currency: l.currency });
  direction.options[1].textContent = t('fromDinars', { currency: l.currency });
  const valid = amountOf() !== null;
  $('convert-amount').setAttribute('aria-invalid', String(!valid));
  const messages = valid ? [] : [t('amountInvalid')];
  const trs = [];
  for (const { source, res } of shown?.rows ?? []) {
    if (!res.ok) {
      messages.push(explain(res, `what.convert.${source}`));
      continue;
    }
    const c = res.body.data;
    const used = c.rates[0];
    const tr = document.createElement('tr');
    tr.dataset.source = source;
    const th = cell('th', t(`family.${source}`));
    th.scope = 'row';
    tr.append(
      th,
      // The API's result, to the cent; the display keeps the reader's locale.
      cell('td', money(c.result, c.to), { value: String(c.result), decimal: c.resultDecimal }),
      cell('td', `${rate(used.rate)} (${t(used.side === 'buy' ? 'sideBuy' : 'sideSell')})`, {
        value: String(used.rate),
      }),
    );
    trs.push(tr);
  }
  $('converter-message').textContent = messages.join(' ');
  $('converter-rows').replaceChildren(...trs);
  $('converter-table').hidden = trs.length === 0;
}
