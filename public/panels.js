/*
 * The panels over the window: the rates of each source family, the premium (its
 * history and its latest value) and the gold references. Each draws from what
 * state.js holds, so that a change of side or of language redraws without a request.
 */
import { explain, isDenied } from './api.js';
import { $, count, day, instant, percent, rate, t } from './format.js';
import { state } from './state.js';
import { drawChart } from './svg.js';

const PURITIES = ['24K', '21K', '18K'];

export const side = () =>
  document.querySelector('input[name="side"]:checked')?.value === 'sell' ? 'sell' : 'buy';
const sideName = (s) => t(s === 'sell' ? 'sideSell' : 'sideBuy');

function setFigure(id, value, text) {
  const cell = $(id);
  cell.dataset.value = String(value);
  cell.textContent = text;
}

/** A record's point; an interval's (`interval` asked, docs/decisions.md 128) is its close, at its last observation. */
const toPoints = (records, s) =>
  records
    .map((r) =>
      r.interval
        ? { t: Date.parse(r.lastUpdatedAt), v: r[s].close }
        : { t: Date.parse(r.updatedAt), v: r[s] },
    )
    .sort((a, b) => a.t - b.t);

export function renderRates() {
  const r = state.rates;
  if (!r) return;
  const s = side();
  const messages = [];
  const series = [];
  for (const [source, res] of Object.entries(r.bySource)) {
    if (isDenied(res)) continue;
    const family = t(`family.${source}`);
    if (!res.ok) messages.push(explain(res, `what.history.${source}`, { currency: r.currency }));
    else if (res.records.length === 0) messages.push(t('noRatesWindow', { family, currency: r.currency }));
    series.push({
      id: source,
      name: family,
      className: `series-${source}`,
      points: res.ok ? toPoints(res.records, s) : [],
    });
  }
  $('rates-message').textContent = messages.join(' ');
  // Each line the chart draws, named by its style: only the families read and published.
  $('rates-caption').textContent = series.map((x) => t(`ratesLine.${x.id}`)).join(' ');
  const described = series
    .filter((x) => x.points.length > 0)
    .map((x) =>
      t('ratesSeries', { name: x.name, first: rate(x.points[0].v), last: rate(x.points.at(-1).v) }),
    );
  const [from, to] = [day(r.from), day(r.to)];
  drawChart($('rates-chart'), {
    series,
    from: r.from,
    to: r.to,
    yTitle: t('ratesYTitle', { currency: r.currency, side: sideName(s) }),
    labelRoom: 124,
    label: `${t('ratesLabel', { currency: r.currency, side: sideName(s), from, to })} ${
      described.length > 0 ? `${described.join('; ')}.` : t('noDataSentence')
    }`,
  });
}

/** Figures the API computed (meta.summary), shown as they are: nothing is recomputed here. */
export function renderPremiumHistory() {
  const p = state.premiumHistory;
  if (!p) return;
  const s = side();
  const { res, currency } = p;
  const [from, to] = [day(p.from), day(p.to)];
  const summary = res.ok ? res.body.meta.summary : null;
  const message = $('premium-history-message');
  if (!res.ok && res.status === 404) message.textContent = t('noPremiumHistory', { currency });
  else if (!res.ok) message.textContent = explain(res, 'what.premiumHistory');
  else if (!summary) message.textContent = t('noPremiumWindow', { currency });
  else message.textContent = '';

  $('premium-summary').hidden = !summary;
  if (summary) {
    $('premium-summary-caption').textContent = t('summaryCaption', { currency, from, to });
    $('summary-days').dataset.value = String(summary.days);
    $('summary-days').textContent = t('summaryDays', { n: count(summary.days) });
    for (const k of ['buy', 'sell']) {
      for (const end of ['min', 'max']) {
        const cell = $(`summary-${k}-${end}`);
        cell.dataset.date = summary[k][end].date;
        setFigure(
          `summary-${k}-${end}`,
          summary[k][end].percent,
          t('summaryExtreme', { percent: percent(summary[k][end].percent), date: day(summary[k][end].date) }),
        );
      }
      setFigure(`summary-${k}-mean`, summary[k].mean, percent(summary[k].mean));
    }
  }

  // Each point at the time of the day's parallel observation, as on the rates chart.
  const items = res.ok ? res.records : [];
  const points = items
    .map((item) => ({ t: Date.parse(item.parallel.updatedAt), v: item.premium[s].percent, date: item.date }))
    .sort((a, b) => a.t - b.t);
  const extreme = (end, className) => {
    const { percent: v, date } = summary[s][end];
    const found = points.find((x) => x.date === date);
    const label = t(end === 'min' ? 'markLowest' : 'markHighest', { percent: percent(v) });
    return { t: found ? found.t : Date.parse(`${date}T12:00:00Z`), v, label, className, date };
  };
  const drawn = summary && points.length > 0;
  drawChart($('premium-chart'), {
    series: [
      { id: 'premium', name: t('premiumSeries', { side: sideName(s) }), className: 'series-premium', points },
    ],
    marks: drawn ? [extreme('min', 'mark-min'), extreme('max', 'mark-max')] : [],
    rules: drawn
      ? [
          {
            v: summary[s].mean,
            label: t('ruleMean', { percent: percent(summary[s].mean) }),
            className: 'rule-mean',
          },
        ]
      : [],
    from: p.from,
    to: p.to,
    yTitle: t('premiumYTitle', { side: sideName(s) }),
    label: summary
      ? t('premiumLabel', {
          currency,
          side: sideName(s),
          from,
          to,
          days: count(summary.days),
          min: percent(summary[s].min.percent),
          minDate: day(summary[s].min.date),
          max: percent(summary[s].max.percent),
          maxDate: day(summary[s].max.date),
          mean: percent(summary[s].mean),
        })
      : t('premiumLabelNone', { currency, from, to }),
  });
}

export function renderPremium() {
  const p = state.premium;
  if (!p) return;
  const { currency, res } = p;
  const item = res.ok ? res.body.data.find((d) => d.currency === currency) : null;
  $('premium-table').hidden = !item;
  if (!res.ok) $('premium-message').textContent = explain(res, 'what.premium');
  else if (!item) $('premium-message').textContent = t('noPremium', { currency });
  else $('premium-message').textContent = '';
  if (!item) return;
  $('premium-caption').textContent = t('premiumCaption', {
    currency,
    parallel: instant(item.parallel.updatedAt),
    official: instant(item.official.updatedAt),
  });
  for (const k of ['buy', 'sell']) {
    setFigure(`parallel-${k}`, item.parallel[k], rate(item.parallel[k]));
    setFigure(`official-${k}`, item.official[k], rate(item.official[k]));
    setFigure(`premium-${k}-amount`, item.premium[k].amount, rate(item.premium[k].amount));
    setFigure(`premium-${k}-percent`, item.premium[k].percent, percent(item.premium[k].percent));
  }
}

export function renderGoldLatest() {
  const res = state.goldLatest;
  if (!res) return;
  $('gold-table').hidden = !res.ok;
  $('gold-message').textContent = res.ok ? '' : explain(res, 'what.goldLatest');
  if (!res.ok) return;
  $('gold-rows').replaceChildren(
    ...res.body.data.map((g) => {
      const row = document.createElement('tr');
      row.dataset.purity = g.purity;
      row.dataset.testid = `gold-${g.purity}`;
      const cells = [g.purity, rate(g.buy), rate(g.sell), instant(g.updatedAt)];
      row.append(
        ...cells.map((text, i) => {
          const cell = document.createElement(i === 0 ? 'th' : 'td');
          if (i === 0) cell.scope = 'row';
          if (i === 1 || i === 2) cell.dataset.value = String(i === 1 ? g.buy : g.sell);
          if (i === 3) cell.dataset.value = g.updatedAt;
          cell.textContent = text;
          return cell;
        }),
      );
      return row;
    }),
  );
}

export function renderGoldHistory() {
  const g = state.goldHistory;
  if (!g) return;
  const s = side();
  $('gold-history-message').textContent = g.res.ok ? '' : explain(g.res, 'what.goldHistory');
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
  const drawn = series.filter((x) => x.points.length > 0);
  drawChart($('gold-chart'), {
    series,
    from: g.from,
    to: g.to,
    yTitle: t('goldYTitle', { side: sideName(s) }),
    label: g.res.ok
      ? t('goldLabel', {
          side: sideName(s),
          from: day(g.from),
          to: day(g.to),
          series: drawn
            .map((x) =>
              t('goldSeries', { name: x.name, first: rate(x.points[0].v), last: rate(x.points.at(-1).v) }),
            )
            .join('; '),
        })
      : t('goldNone'),
  });
}
