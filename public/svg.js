/*
 * Line charts as inline SVG: no dependency. The time axis runs left to right in
 * every language; in Arabic each label is laid out right to left, its anchor
 * mirrored so that it stays where the left-to-right layout puts it.
 *
 * The drawing is as wide, in its own units, as the chart is on screen (redrawn
 * when that changes), so that its 12-px text is 12 px on a phone as on a
 * desktop, never a 1200-px drawing shrunk to 4-px labels. On a narrow chart the
 * lines' names are left to the caption below, which names each line.
 */
import { day, t, tick } from './format.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const DAY_MS = 86_400_000;
const MIRROR = { start: 'end', end: 'start', middle: 'middle' };
/** Narrower than this (CSS px), the lines are not named at their ends. */
const NARROW = 560;
/** Room a date label needs on the time axis (CSS px at 12 px). */
const DATE_ROOM = 96;
const MIN_HEIGHT = 220;

/** Each chart's last drawing, to draw again at a new width. */
const drawn = new WeakMap();
const resized = new ResizeObserver((entries) => {
  for (const { target } of entries) {
    const last = drawn.get(target);
    if (last && Math.round(target.getBoundingClientRect().width) !== last.width)
      drawChart(target, last.options);
  }
});

function el(name, attributes, text) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
  if (text !== undefined) {
    node.textContent = text;
    if (document.documentElement.dir === 'rtl') {
      node.setAttribute('direction', 'rtl');
      node.setAttribute('text-anchor', MIRROR[attributes['text-anchor'] ?? 'start']);
    }
  }
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
export function drawChart(svg, options) {
  const { series, marks = [], rules = [], from, to, yTitle, label, labelRoom = 72 } = options;
  // The drawing's proportions as charts.html gives them (viewBox), kept to scale its height.
  svg.dataset.base ??= `${svg.viewBox.baseVal.width} ${svg.viewBox.baseVal.height}`;
  const [baseWidth, baseHeight] = svg.dataset.base.split(' ').map(Number);
  const shown = Math.round(svg.getBoundingClientRect().width);
  // Hidden (0 wide): drawn at its base size, and again once shown.
  const width = shown > 0 ? shown : baseWidth;
  const height = Math.round(Math.max(MIN_HEIGHT, (baseHeight * width) / baseWidth));
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  drawn.set(svg, { width: shown, options });
  resized.observe(svg);
  const narrow = width < NARROW;
  // `labelRoom`: the right margin, where each line's name is written after its last point.
  const m = { left: 70, right: narrow ? 16 : labelRoom, top: 22, bottom: 46 };
  const values = series.flatMap((x) => x.points.map((p) => p.v));
  svg.replaceChildren();
  svg.setAttribute('aria-label', label);
  svg.dataset.series = String(series.filter((x) => x.points.length > 0).length);
  if (values.length === 0) {
    svg.append(
      el('text', { x: width / 2, y: height / 2, 'text-anchor': 'middle', class: 'tick' }, t('noData')),
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
  const x = (ms) => m.left + ((ms - t0) / (t1 - t0)) * (width - m.left - m.right);
  const y = (v) => height - m.bottom - ((v - lo) / (hi - lo)) * (height - m.top - m.bottom);
  const f = (n) => n.toFixed(1);

  const axis = el('g', { class: 'axis' });
  const step = niceStep(hi - lo, 5);
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) {
    axis.append(el('line', { x1: m.left, x2: width - m.right, y1: f(y(v)), y2: f(y(v)) }));
    axis.append(
      el('text', { x: m.left - 6, y: f(y(v) + 4), 'text-anchor': 'end', class: 'y-tick' }, tick(v)),
    );
  }
  const days = Math.round((t1 - t0) / DAY_MS);
  const ticks = Math.max(1, Math.min(6, days, Math.floor((width - m.left - m.right) / DATE_ROOM)));
  for (let i = 0; i <= ticks; i++) {
    const ms = t0 + Math.round((i * days) / ticks) * DAY_MS;
    const date = new Date(Math.min(ms, t1)).toISOString().slice(0, 10);
    axis.append(el('line', { x1: f(x(ms)), x2: f(x(ms)), y1: height - m.bottom, y2: height - m.bottom + 5 }));
    axis.append(
      el(
        'text',
        {
          x: f(x(ms)),
          y: height - m.bottom + 18,
          // The last date ends at the axis's end rather than past the drawing's edge.
          'text-anchor': i === ticks && width - x(ms) < DATE_ROOM / 2 ? 'end' : 'middle',
          class: 'x-tick',
          'data-date': date,
        },
        day(date),
      ),
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
      t('dateAxis'),
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
    if (narrow) continue;
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
