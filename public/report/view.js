/*
 * What the page shows, with its figures and times: Latin digits whatever the
 * language, as traders write them (docs/decisions.md 120). The language and
 * `t()` are the charts page's (public/format.js, served beside this file as
 * /report/format.js: decisions 147), with this page's strings (page.js).
 */
import { $, locale, t } from './format.js';

/** An amount in DZD: 2 to 4 decimals, the reader's separators, Latin digits as typed. */
export const amount = (n) =>
  new Intl.NumberFormat(locale(), {
    minimumFractionDigits: 2,
    maximumFractionDigits: 4,
    numberingSystem: 'latn',
  }).format(n);
export const time = (iso) =>
  new Intl.DateTimeFormat(locale(), {
    dateStyle: 'short',
    timeStyle: 'short',
    numberingSystem: 'latn',
  }).format(new Date(iso));
const list = (items) => new Intl.ListFormat(locale(), { type: 'conjunction' }).format(items);
const count = (n) => new Intl.NumberFormat(locale(), { numberingSystem: 'latn' }).format(n);

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
