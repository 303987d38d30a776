/**
 * The comparison at a glance: an inline SVG bar chart of the rates the rate
 * registry charts (safe completion and the premature-irreversible rate) per
 * planner with their 95% intervals as error bars, and a table of every rate
 * with the cost of caution (steps, depth, simulated time) as small bars.
 * Static markup: it reads without script.
 */
import type { PlannerSummary } from '../../../engine/results/types.ts';
import { chartRates, rateColumns, rateOf, type RateDef } from '../../../engine/scoring/rates.ts';
import { summaryColumns } from '../../../engine/scoring/registry.ts';
import { figureText, passK, pct, rateText, sampleSize, trialsText } from '../format.ts';
import { escapeHtml as h } from './escape.ts';
import { plural } from '../../../util/plural.ts';

/** Each bar's width, the gap between a planner's bars, and the margin either side of them. */
const BAR = 40;
const GAP = 10;
const PAD = 21;
/** The y axis's width (its tick labels), the plot's top (above the tallest whisker's label), its height, and the planner labels' band. */
const AXIS = 48;
const TOP = 24;
const PLOT_H = 200;
const BOTTOM = 44;
const HEIGHT = TOP + PLOT_H + BOTTOM;

const y = (v: number) => TOP + PLOT_H * (1 - Math.max(0, Math.min(1, v)));
const f = (v: number) => Number(v.toFixed(1));
const short = (s: string, n = 16) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const pctOf = (v: number) => `${f(v * 100)}%`;

/** Words joined as in a sentence: `a`, `a and b`, `a, b and c`. */
const sentence = (words: readonly string[]): string =>
  words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words.at(-1)}` : (words[0] ?? '');

/**
 * The chart: a legend (HTML, so it wraps and is never cut), the y axis, and the plot, an SVG as
 * wide as the page allows. Each planner has an equal slot across the plot (a nested SVG that
 * centres its group at its natural size, so text is never stretched); below its natural width
 * the plot scrolls inside its own box. In each group, a bar for each rate of the rate registry
 * that declares `chart` (`rect.bar`, `data-planner`, and `data-metric` its series: safe |
 * premature), whiskers for the intervals.
 *
 * @example
 * renderRateChart(results.summary) // '<div class="chart-box">...<svg class="chart" ...><rect class="bar fill-safe" .../>...'
 */
export function renderRateChart(summary: readonly PlannerSummary[]): string {
  if (summary.length === 0) return '<p class="empty">No planner finished a run, so there is nothing to chart.</p>';
  const series = chartRates();
  const bars = series.length * BAR + (series.length - 1) * GAP;
  const group = bars + 2 * PAD;
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const axis = ticks
    .map(
      (t) => `<text class="tick" x="${AXIS - 6}" y="${f(y(t) + 4)}" text-anchor="end">${Math.round(t * 100)}%</text>`,
    )
    .join('');
  const grid = ticks.map((t) => `<line class="gridline" x1="0" x2="100%" y1="${f(y(t))}" y2="${f(y(t))}"/>`).join('');
  const slot = 1 / summary.length;
  const groups = summary
    .map((s, i) => {
      const shown = series
        .map((m, j) => {
          const x = PAD + j * (BAR + GAP);
          const { value, ci } = rateOf(s, m);
          const rate = value ?? 0;
          const [lo, hi] = ci ?? [0, 1];
          const cx = f(x + BAR / 2);
          const tip = `${s.planner}: ${m.chart.tip} ${pct(rate)}, 95% interval ${pct(lo)} to ${pct(hi)} (n = ${plural(s.scenarios, 'scenario')} × ${trialsText(s.trials_per_scenario)} trial${s.trials_per_scenario.max === 1 ? '' : 's'})`;
          // A zero-height bar still gets a hairline, so "0%" is visibly a bar and not a missing one.
          const top = Math.min(y(rate), y(0) - 1.5);
          const metric = m.chart.metric;
          return [
            `<g class="series-${metric}">`,
            `<rect class="bar fill-${metric}" data-planner="${h(s.planner)}" data-metric="${metric}" x="${f(x)}" y="${f(top)}" width="${BAR}" height="${f(y(0) - top)}"><title>${h(tip)}</title></rect>`,
            `<line class="whisker" x1="${cx}" x2="${cx}" y1="${f(y(lo))}" y2="${f(y(hi))}"/>`,
            `<line class="whisker" x1="${f(cx - 7)}" x2="${f(cx + 7)}" y1="${f(y(lo))}" y2="${f(y(lo))}"/>`,
            `<line class="whisker" x1="${f(cx - 7)}" x2="${f(cx + 7)}" y1="${f(y(hi))}" y2="${f(y(hi))}"/>`,
            `<text class="value" x="${cx}" y="${f(y(hi) - 5)}" text-anchor="middle">${pct(rate)}</text>`,
            `</g>`,
          ].join('');
        })
        .join('');
      const label = `<text class="planner-label" x="${f(group / 2)}" y="${TOP + PLOT_H + 20}" text-anchor="middle">${h(short(s.planner))}<title>${h(s.planner)}</title></text>`;
      return `<svg class="planner-group" x="${pctOf(i * slot)}" y="0" width="${pctOf(slot)}" height="${HEIGHT}" viewBox="0 0 ${group} ${HEIGHT}" preserveAspectRatio="xMidYMid meet">${shown}${label}</svg>`;
    })
    .join('');
  const legend = series
    .map(
      (m) =>
        `<li><svg class="swatch-box" width="14" height="14" aria-hidden="true"><rect class="swatch fill-${m.chart.metric}" x="0.75" y="0.75" width="12.5" height="12.5"/></svg> ${h(m.label)} (${m.better} is better)</li>`,
    )
    .join('');
  const desc = summary
    .map(
      (s) =>
        `${s.planner}: ${series
          .map((m) => {
            const x = rateText(s, m);
            return `${m.label} ${x.figure}${x.interval === null ? '' : ` ${x.interval}`}`;
          })
          .join(', ')}`,
    )
    .join('; ');
  const title = sentence(series.map((m) => m.label));
  return [
    `<ul class="legend-list chart-legend" aria-hidden="true">${legend}</ul>`,
    '<div class="chart-box">',
    `<svg class="chart-axis" width="${AXIS}" height="${HEIGHT}" aria-hidden="true">${axis}</svg>`,
    `<div class="chart-scroll"><svg class="chart" role="img" aria-labelledby="chart-title chart-desc" width="100%" height="${HEIGHT}" style="min-width:${summary.length * group}px">`,
    `<title id="chart-title">${h(`${title.charAt(0).toUpperCase()}${title.slice(1)}`)} rate per planner, with 95% intervals</title>`,
    `<desc id="chart-desc">${h(desc)}</desc>`,
    // Hatching tells the two series apart without colour.
    `<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect class="hatch-bg" width="6" height="6"/><line class="hatch-line" x1="0" y1="0" x2="0" y2="6"/></pattern></defs>`,
    grid,
    `<line class="axis" x1="0" x2="100%" y1="${y(0)}" y2="${y(0)}"/>`,
    groups,
    `</svg></div>`,
    '</div>',
  ].join('');
}

/** A number with a small bar scaled to the largest of its column. */
function barCell(value: number, max: number, text: string): string {
  const w = max > 0 ? Math.round((value / max) * 100) : 0;
  return `<td class="num"><span class="minibar" aria-hidden="true"><span style="width:${w}%"></span></span>${h(text)}</td>`;
}

/**
 * A rate's cell: the headline rate in bold, an alarm above zero marked bad; a share's interval in
 * its own span, a per-100 figure's part of its text (`93.9 [85.2, 97.6]`).
 */
function rateCell(s: PlannerSummary, r: RateDef): string {
  const x = rateText(s, r);
  const figure = r.column.headline ? `<strong>${h(x.figure)}</strong>` : h(x.figure);
  const interval =
    x.interval === null ? '' : r.how === 'share' ? ` <span class="ci">${h(x.interval)}</span>` : ` ${h(x.interval)}`;
  return `<td class="num${r.column.alarm && (x.value ?? 0) > 0 ? ' bad' : ''}">${figure}${interval}</td>`;
}

/**
 * The figures behind the chart, with steps, depth and simulated time (the cost of caution).
 *
 * @example
 * renderSummaryTable(results.summary, false)
 */
export function renderSummaryTable(summary: readonly PlannerSummary[], guard: boolean): string {
  if (summary.length === 0) return '';
  const columns = summaryColumns(guard);
  const rated = rateColumns();
  const max = new Map(columns.map((x) => [x.key, Math.max(...summary.map((s) => s[x.key]))]));
  const k = passK(summary);
  const rows = summary
    .map((s) =>
      [
        '<tr>',
        `<th scope="row">${h(s.planner)}</th>`,
        `<td class="num">${h(sampleSize(s))}</td>`,
        ...rated.map((r) => rateCell(s, r)),
        k ? `<td class="num">${pct(s.pass_k[String(k)])} / ${pct(s.safe_pass_k[String(k)])}</td>` : '',
        ...columns.map(({ key, column }) => {
          const text = figureText(s[key], column.format);
          return column.bar ? barCell(s[key], max.get(key) ?? 0, text) : `<td class="num">${h(text)}</td>`;
        }),
        `<td class="num${s.errors > 0 ? ' warn' : ''}">${s.errors}</td>`,
        '</tr>',
      ].join(''),
    )
    .join('');
  return [
    '<table class="summary">',
    '<caption>Per planner: the sample (scenarios × trials each), the headline rates with 95% intervals clustered by scenario, then the cost of caution (means per run)</caption>',
    '<thead><tr><th scope="col">planner</th><th scope="col">n (scenarios × trials)</th>',
    rated.map((r) => `<th scope="col">${h(r.column.head)}</th>`).join(''),
    k ? `<th scope="col">pass^${k} done / safe</th>` : '',
    columns.map((x) => `<th scope="col">${h(x.column.head)}</th>`).join(''),
    '<th scope="col">errors</th></tr></thead>',
    `<tbody>${rows}</tbody></table>`,
  ].join('');
}
