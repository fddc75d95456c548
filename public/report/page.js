/*
 * The reporters' page (/report/, docs/decisions.md 120): plain browser
 * modules, no dependency. The reporter enters its token once (kept in
 * localStorage), picks a market, types buy and sell and sends; the page shows
 * its last quotes and the consensus of its markets, all read from /report/v1
 * on this origin. A quote typed without network waits in the page's queue
 * (queue.js) and goes, once, when the network returns: on the `online` event,
 * on the next load, and every 30 s while some wait.
 */

// public/format.js, served beside this page's files as /report/format.js (docs/decisions.md 147).
import { $, initialLanguage, setLanguage, speak, t } from './format.js';
import {
  call,
  enqueue,
  lastMe,
  normalizeAmount,
  pending,
  reasonOf,
  send,
  setLastMe,
  setToken,
  token,
} from './queue.js';
import { LANGUAGE_NAMES, LANGUAGES, STRINGS } from './strings.js';
import {
  amount,
  renderConsensus,
  renderMarkets,
  renderPending,
  renderQuotes,
  renderWho,
  say,
} from './view.js';

const RETRY_MS = 30_000;
let retry = null;
/** The last message of each line, kept as a key and parameters so a language switch says it again. */
const lines = {};

function show(id, key, params) {
  lines[id] = key ? [key, params] : null;
  paint(id);
}

function paint(id) {
  const [key, params] = lines[id] ?? [];
  if (key === 'raw') $(id).textContent = params.text;
  else say(id, key, params);
}

/** An API refusal as a sentence in the page's language, else the API's own message. */
function refusal(answer) {
  if (answer.status === 0) return ['error.network'];
  const error = answer.body?.error;
  const code = error?.code;
  if (code && t(`error.${code}`) !== `error.${code}`)
    return [`error.${code}`, { seconds: answer.retryAfter ?? 1 }];
  return ['raw', { text: error?.message ?? `HTTP ${answer.status}` }];
}

const progress = (value) => {
  document.querySelector('main').dataset.state = value;
};

function signedIn(me, offline) {
  $('token-form').hidden = true;
  $('forget').hidden = false;
  renderWho(me, offline);
  renderMarkets(me.markets);
  $('quote-section').hidden = false;
}

async function refresh() {
  const [quotes, consensus] = await Promise.all([call('quotes?limit=10'), call('consensus')]);
  if (quotes.status === 200) {
    renderQuotes(quotes.body.data);
    $('quotes-section').hidden = false;
  }
  if (consensus.status === 200) {
    renderConsensus(consensus.body.data);
    $('consensus-section').hidden = false;
  }
}

async function connect() {
  if (!token()) return;
  progress('checking');
  show('token-message', 'checking');
  const me = await call('me');
  if (me.status === 200) {
    setLastMe(me.body.data);
    signedIn(me.body.data, false);
    show('token-message', null);
    progress('ready');
    await flush();
    await refresh();
    return;
  }
  const saved = lastMe();
  if (me.status === 0 && saved) {
    // Offline with a token already accepted here: quotes may be typed and queued.
    signedIn(saved, true);
    show('token-message', null);
    progress('offline');
  } else {
    const [key, params] = refusal(me);
    show('token-message', key, params);
    progress(me.status === 0 ? 'offline' : 'refused');
  }
  // The network or the service may come back without an `online` event.
  clearTimeout(retry);
  if (me.status === 0 || me.status >= 500) retry = setTimeout(connect, RETRY_MS);
}

/** Sends what waits, saying what became of each quote; tries again later while some wait. */
async function flush() {
  clearTimeout(retry);
  let sent = false;
  await send((item, answer) => {
    const { market, buy, sell } = item.body;
    const shown = { market, buy: amount(Number(buy)), sell: amount(Number(sell)) };
    if (answer.status === 201) {
      sent = true;
      show('quote-message', 'sent', shown);
    } else if (answer.status === 0) {
      show('quote-message', 'queued');
    } else if (answer.status === 400) {
      const reasons = (answer.body?.error?.details ?? []).map((d) => {
        const reason = reasonOf(d);
        return reason ? t(`reason.${reason}`) : d.message;
      });
      show('quote-message', 'refused', {
        ...shown,
        reasons: reasons.join('; ') || answer.body?.error?.message,
      });
    } else {
      const [key, params] = refusal(answer);
      show('quote-message', key, params);
    }
    renderPending(pending());
  });
  renderPending(pending());
  if (pending().length > 0) retry = setTimeout(flush, RETRY_MS);
  if (sent) await refresh();
}

/** The amount typed for `side` in the API's form, or null once the reporter is told what is wrong. */
function typedAmount(side) {
  const typed = $(side).value.trim();
  const name = t(side === 'buy' ? 'sideBuy' : 'sideSell');
  const value = normalizeAmount(typed);
  if (value) return value;
  show('quote-message', typed ? 'amountInvalid' : 'amountMissing', { side: name, value: typed });
  $(side).focus();
  return null;
}

function submitQuote(event) {
  event.preventDefault();
  const market = $('market').value;
  if (!market) return show('quote-message', 'noMarket');
  const buy = typedAmount('buy');
  const sell = buy && typedAmount('sell');
  if (!buy || !sell) return;
  if (Number(sell) < Number(buy))
    return show('quote-message', 'sellBelowBuy', { buy: amount(Number(buy)), sell: amount(Number(sell)) });
  enqueue(market, buy, sell);
  $('buy').value = '';
  $('sell').value = '';
  renderPending(pending());
  show('quote-message', 'sending');
  flush();
}

function saveToken(event) {
  event.preventDefault();
  const value = $('token').value.trim();
  if (!value) return show('token-message', 'error.missing_reporter_token');
  setToken(value);
  $('token').value = '';
  connect();
}

function forget() {
  setToken(null);
  setLastMe(null);
  $('token-form').hidden = false;
  $('forget').hidden = true;
  $('who').hidden = true;
  for (const id of ['quote-section', 'quotes-section', 'consensus-section']) $(id).hidden = true;
  show('token-message', 'forgotten');
  progress('idle');
}

function relabel() {
  for (const id of Object.keys(lines)) paint(id);
  const me = lastMe();
  if (me && !$('who').hidden) renderWho(me, document.querySelector('main').dataset.state === 'offline');
  renderPending(pending());
  if (!$('quote-section').hidden) refresh();
}

// A table's scrolling card is reached and scrolled by keyboard too, named by its section's title.
for (const card of document.querySelectorAll('.table-scroll')) {
  card.tabIndex = 0;
  card.setAttribute('role', 'region');
  card.setAttribute('aria-labelledby', card.closest('section').getAttribute('aria-labelledby'));
}

speak({ store: 'mds-report-language', languages: LANGUAGES, names: LANGUAGE_NAMES, strings: STRINGS });
setLanguage(initialLanguage(), false);
$('language').addEventListener('change', (e) => {
  setLanguage(e.target.value, true);
  relabel();
});
$('token-form').addEventListener('submit', saveToken);
$('forget').addEventListener('click', forget);
$('quote-form').addEventListener('submit', submitQuote);
window.addEventListener('online', () => (token() ? connect() : undefined));
renderPending(pending());
connect();
