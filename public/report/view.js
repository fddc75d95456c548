/*
 * The page's language, its formats and what it shows. The language is the one
 * chosen on the page (kept in localStorage), else the first of the browser's
 * languages (the list it sends as Accept-Language) that the page speaks, else
 * English; Arabic reads right to left.
 */
import { LANGUAGE_NAMES, LANGUAGES, STRINGS } from './strings.js';

const LANGUAGE_STORE = 'mds-report-language';
const primary = (tag) => String(tag).toLowerCase().split('-')[0];
const current = { language: 'en', locale: 'en' };

export const $ = (id) => document.getElementById(id);

export function t(key, params = {}) {
  const text = STRINGS[current.language][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

export function initialLanguage() {
  let stored = null;
  try {
    stored = localStorage.getItem(LANGUAGE_STORE);
  } catch {
    // Storage refused: the browser's languages decide.
  }
  if (LANGUAGES.includes(stored)) return stored;
  const wanted = navigator.languages?.length ? navigator.languages : [navigator.language];
  return wanted.map(primary).find((code) => LANGUAGES.includes(code)) ?? 'en';
}

export function setLanguage(code, remember) {
  if (!LANGUAGES.includes(code)) code = 'en';
  if (remember) {
    try {
      localStorage.setItem(LANGUAGE_STORE, code);
    } catch {
      // The choice holds for this page only.
    }
  }
  current.language = code;
  const own = (navigator.languages ?? []).find((tag) => primary(tag) === code);
  current.locale = own && Intl.NumberFormat.supportedLocalesOf([own]).length ? own : code;
  document.documentElement.lang = code;
  document.documentElement.dir = code === 'ar' ? 'rtl' : 'ltr';
  document.title = t('pageTitle');
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  const select = $('language');
  select.replaceChildren(...LANGUAGES.map((l) => new Option(LANGUAGE_NAMES[l], l, false, l === code)));
}

/** An amount in DZD: 2 to 4 decimals, the reader's separators, Latin digits as typed. */
export const amount = (n) =>
  new Intl.NumberFormat(current.locale, {
    minimumFractionDigits: 2,
    maximumFractionDigits: 4,
    numberingSystem: 'latn',
  }).format(n);
export const time = (iso) =>
  new Intl.DateTimeFormat(current.locale, {
    dateStyle: 'short',
    timeStyle: 'short',
    numberingSystem: 'latn',
  }).format(new Date(iso));
const list = (items) => new Intl.ListFormat(current.locale, { type: 'conjunction' }).format(items);
const count = (n) => new Intl.NumberFormat(current.locale, { numberingSystem: 'latn' }).format(n);

/** A message line: `key` with its parameters, or empty. */
export function say(id, key, params) {
  $(id).textContent = key ? t(key, params) : '';
}

export function renderWho(me, offline) {
  const markets = list(me.markets);
  $('who').textContent = offline ? t('whoOffline', { markets }) : t('who', { id: me.id, markets });
  $('who').hidden = false;
}

export function renderMarkets(markets) {
  const select = $('market');
  const previous = select.value;
  select.replaceChildren(...markets.map((m) => new Option(m, m, false, m === previous)));
}

/** The quotes waiting for the network, oldest first. */
export function renderPending(items) {
  $('pending-box').hidden = items.length === 0;
  $('pending').replaceChildren(
    ...items.map((q) => {
      const li = document.createElement('li');
      li.textContent = t('pendingItem', {
        market: q.body.market,
        buy: amount(Number(q.body.buy)),
        sell: amount(Number(q.body.sell)),
        time: time(q.typedAt),
      });
      return li;
    }),
  );
  $('pending-box').dataset.count = String(items.length);
}

export function renderQuotes(quotes) {
  $('quotes-empty').hidden = quotes.length > 0;
  $('quotes-table').hidden = quotes.length === 0;
  $('quotes-rows').replaceChildren(
    ...quotes.map((q) => {
      const tr = document.createElement('tr');
      tr.dataset.id = q.id;
      for (const text of [q.market, amount(q.buy), amount(q.sell), time(q.observedAt)]) {
        const td = document.createElement('td');
        td.textContent = text;
        tr.append(td);
      }
      return tr;
    }),
  );
}

export function renderConsensus(markets) {
  $('consensus').replaceChildren(
    ...markets.map((c) => {
      const li = document.createElement('li');
      li.dataset.market = c.market;
      li.dataset.state = c.state;
      const name = document.createElement('strong');
      name.textContent = c.market;
      const text =
        c.state === 'ok'
          ? t('consensusOk', {
              buy: amount(c.buy),
              sell: amount(c.sell),
              organisations: count(c.organisations),
              confidence: t(`confidence.${c.confidence}`),
            })
          : t(`state.${c.state}`, { organisations: count(c.organisations) });
      li.append(name, ` ${text}`);
      return li;
    }),
  );
}
