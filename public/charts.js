/*
 * The charts page: plain browser JavaScript modules, no dependency, inline SVG.
 *
 * Every figure comes from this origin's public /v1 API, read with the key the
 * visitor pastes. The key lives in memory (and in sessionStorage only when the
 * visitor asks), and is sent only as `Authorization: Bearer` to /v1 on this
 * origin (api.js). The key is checked once with /v1/me before any panel loads:
 * a refused key is one message, and the panels it may not read fold into one
 * line (docs/decisions.md, 66).
 */
import { renderAccount, renderLacks } from './account.js';
import { allPages, api, keyAccepted, loadPublished, noteAccess, renderAccess } from './api.js';
import { convertNow, renderConverter, scheduleConvert } from './converter.js';
import { $, initialLanguage, language, setLanguage, speak, t } from './format.js';
import { LANGUAGE_NAMES, LANGUAGES, STRINGS } from './i18n.js';
import { latestReadable, loadLatest, renderLatest } from './latest.js';
import {
  renderGoldHistory,
  renderGoldLatest,
  renderPremium,
  renderPremiumHistory,
  renderRates,
} from './panels.js';
import {
  historyEntitlement,
  latestEntitlement,
  may,
  published,
  resetKeyState,
  sources,
  state,
} from './state.js';

const KEY_STORE = 'mds-charts-key';
const DAY_MS = 86_400_000;
const FALLBACK_CURRENCIES = ['EUR', 'USD', 'GBP', 'CAD'];
const PANELS = ['latest', 'converter', 'rates', 'premium-history', 'premium', 'gold'];

function windowDates(days) {
  const now = new Date();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const iso = (ms) => new Date(ms).toISOString().slice(0, 10);
  return { from: iso(today - (days - 1) * DAY_MS), to: iso(today) };
}

const connected = () => keyAccepted(state.me);
/** The page's progress, for a reader's tools and the tests: idle, checking, loading, ready or refused. */
const progress = (value) => {
  document.querySelector('main').dataset.state = value;
};
const historySources = () => sources().filter((s) => may(historyEntitlement(s)));

/** Which panels the key may read; the others fold into the "not shown" line. */
function readable() {
  const latest = state.latest ? latestReadable() : sources().some((s) => may(latestEntitlement(s)));
  return {
    latest,
    converter: latest,
    rates: historySources().length > 0,
    'premium-history': may('market:premium:history:read'),
    premium: may('market:premium:read'),
    gold: published('gold') && (may('gold:latest:read') || may('gold:history:read')),
  };
}

/** Shows what the key may read, hides the rest (data-state="folded"), and names it in one line. */
function layout() {
  const on = connected();
  const shown = readable();
  for (const id of PANELS) {
    const section = $(id);
    section.hidden = !on || !shown[id];
    if (on && !shown[id]) section.dataset.state = 'folded';
  }
  $('controls').hidden = !on;
  $('chart-controls').hidden = !(shown.rates || shown['premium-history'] || may('gold:history:read'));
  $('gold-latest').hidden = !may('gold:latest:read');
  $('gold-history').hidden = !may('gold:history:read');
  renderLacks();
}

/** A panel's answers arrived: ready, unless a 403 folded it. */
function finish(run, ...ids) {
  if (run !== state.dataRun) return;
  layout();
  for (const id of ids) if (!$(id).hidden) $(id).dataset.state = 'ready';
}

function fillCurrencies() {
  const select = $('currency');
  const previous = select.value || 'EUR';
  const res = state.assets;
  const assets = res?.ok ? res.body.data : FALLBACK_CURRENCIES.map((code) => ({ code, names: {} }));
  const lang = language();
  select.replaceChildren(
    ...assets.map((a) => {
      const name = a.names[lang] ?? a.names.en ?? t('currencyUnnamed');
      return new Option(`${a.code} – ${name}`, a.code, false, a.code === previous);
    }),
  );
  if (!assets.some((a) => a.code === previous) && assets.length > 0) select.value = assets[0].code;
  select.disabled = false;
}

async function connect(event) {
  event?.preventDefault();
  const key = $('api-key').value.trim();
  if (!key) return;
  state.key = key;
  if ($('remember').checked) sessionStorage.setItem(KEY_STORE, key);
  else sessionStorage.removeItem(KEY_STORE);
  const run = ++state.keyRun;
  state.dataRun++;
  state.forgotten = false;
  resetKeyState();
  renderAccess();
  $('me-message').textContent = '';
  layout();
  progress('checking');
  // One request decides whether the key is good and what it may read; /status what the service publishes.
  const [me] = await Promise.all([api('/v1/me', 'no-store'), loadPublished()]);
  if (run !== state.keyRun) return;
  state.me = me;
  noteAccess('/v1/me', 'what.me', {}, me);
  if (me.ok) {
    const grant = new Set(me.body.data.grant.scopes);
    state.entitlements = new Set(me.body.data.key.scopes.filter((s) => grant.has(s)));
  }
  renderAccount();
  layout();
  if (!keyAccepted(me)) return progress('refused');
  progress('loading');
  const [assets, gold] = await Promise.all([
    may('assets:read') ? api('/v1/assets?type=currency') : null,
    published('gold') && may('gold:latest:read') ? api('/v1/gold/latest') : null,
  ]);
  if (run !== state.keyRun) return;
  if (assets) noteAccess('/v1/assets', 'what.assets', {}, assets);
  if (gold) noteAccess('/v1/gold/latest', 'what.goldLatest', {}, gold);
  state.assets = assets;
  state.goldLatest = gold;
  fillCurrencies();
  renderGoldLatest();
  layout();
  await loadData(true);
  if (run === state.keyRun) progress('ready');
}

/** Loads what depends on the currency and the window; `force` reloads the same choice (new key). */
async function loadData(force = false) {
  const currency = $('currency').value;
  if (!state.key || !currency || !connected()) return;
  const { from, to } = windowDates(Number($('window').value));
  // The rates and gold series by interval, their closes drawn; the premium stays daily.
  const interval = $('interval').value;
  const by = interval ? { interval } : {};
  const span = `${currency}|${from}|${to}`;
  const choice = `${span}|${interval}`;
  // Selecting the option already shown costs no quota.
  if (!force && choice === state.choice) return;
  // Only the series' interval changed: the premium panels keep what they read.
  const sameWindow = !force && state.choice?.startsWith(`${span}|`);
  const sameCurrency = !force && state.latest?.currency === currency;
  state.choice = choice;
  const run = ++state.dataRun;
  const shown = readable();
  for (const id of PANELS)
    if (
      shown[id] &&
      !(sameCurrency && (id === 'latest' || id === 'converter')) &&
      !(sameWindow && (id === 'premium-history' || id === 'premium'))
    ) {
      $(id).dataset.state = 'loading';
    }
  const work = [];
  if (shown.latest && !sameCurrency) {
    const update = () => run === state.dataRun && renderLatest();
    // The converter asks /v1/convert once the latest rates say which families have the currency.
    work.push(
      loadLatest(currency, run, update)
        .then(() => run === state.dataRun && convertNow(true))
        .then(() => finish(run, 'latest', 'converter')),
    );
  }
  if (shown.rates) {
    const sources = historySources();
    work.push(
      Promise.all(
        sources.map((source) => allPages('/v1/rates/history', { currency, source, from, to, ...by })),
      ).then((answers) => {
        if (run !== state.dataRun) return;
        answers.forEach((res, i) => {
          noteAccess(
            `/v1/rates/history?source=${sources[i]}`,
            `what.history.${sources[i]}`,
            { currency },
            res,
          );
        });
        state.rates = {
          currency,
          from,
          to,
          bySource: Object.fromEntries(sources.map((s, i) => [s, answers[i]])),
        };
        renderRates();
        finish(run, 'rates');
      }),
    );
  }
  if (shown['premium-history'] && !sameWindow) {
    // The API pairs each day's parallel and official rates and summarises the whole window itself.
    work.push(
      allPages('/v1/market/premium/history', { currency, from, to }).then((res) => {
        if (run !== state.dataRun) return;
        noteAccess('/v1/market/premium/history', 'what.premiumHistory', {}, res);
        state.premiumHistory = { currency, from, to, res };
        renderPremiumHistory();
        finish(run, 'premium-history');
      }),
    );
  }
  if (shown.premium && !sameWindow) {
    work.push(
      api(`/v1/market/premium?currency=${encodeURIComponent(currency)}`).then((res) => {
        if (run !== state.dataRun) return;
        noteAccess('/v1/market/premium', 'what.premium', {}, res);
        state.premium = { currency, res };
        renderPremium();
        finish(run, 'premium');
      }),
    );
  }
  if (published('gold') && may('gold:history:read')) {
    work.push(
      allPages('/v1/gold/history', { from, to, ...by }).then((res) => {
        if (run !== state.dataRun) return;
        noteAccess('/v1/gold/history', 'what.goldHistory', {}, res);
        state.goldHistory = { from, to, res };
        renderGoldHistory();
        finish(run, 'gold');
      }),
    );
  } else if (shown.gold) finish(run, 'gold');
  await Promise.all(work);
}

function forget() {
  state.key = '';
  state.keyRun++;
  state.dataRun++;
  resetKeyState();
  state.forgotten = true;
  sessionStorage.removeItem(KEY_STORE);
  $('api-key').value = '';
  $('remember').checked = false;
  $('me').hidden = true;
  renderAccess();
  layout();
  progress('idle');
  $('me-message').textContent = t('forgotten');
}

/** Everything again in the page's language, from memory: no request. */
function renderAll() {
  if (state.forgotten) $('me-message').textContent = t('forgotten');
  renderAccount();
  renderAccess();
  if (connected() && !$('currency').disabled) fillCurrencies();
  layout();
  renderLatest();
  renderConverter();
  renderRates();
  renderPremiumHistory();
  renderPremium();
  renderGoldLatest();
  renderGoldHistory();
}

// A table's scrolling card (charts.css) is reached and scrolled by keyboard too, named by its panel's title.
for (const card of document.querySelectorAll('.table-scroll')) {
  card.tabIndex = 0;
  card.setAttribute('role', 'region');
  card.setAttribute('aria-labelledby', card.closest('section').getAttribute('aria-labelledby'));
}

speak({ store: 'mds-charts-language', languages: LANGUAGES, names: LANGUAGE_NAMES, strings: STRINGS });
setLanguage(initialLanguage(), false);
state.onQuota = renderAccount;

$('language').addEventListener('change', (event) => {
  setLanguage(event.target.value, true);
  renderAll();
});
$('key-form').addEventListener('submit', connect);
$('forget').addEventListener('click', forget);
$('controls').addEventListener('submit', (event) => event.preventDefault());
$('converter-form').addEventListener('submit', (event) => event.preventDefault());
$('currency').addEventListener('change', () => loadData());
$('window').addEventListener('change', () => loadData());
$('interval').addEventListener('change', () => loadData());
$('convert-amount').addEventListener('input', scheduleConvert);
$('convert-direction').addEventListener('change', scheduleConvert);
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
