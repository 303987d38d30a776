/**
 * The console table: one row per planner (and, under it, the end reasons of the runs that did not
 * complete), then a scenario × planner grid, each fitted to the console's width (util/width.ts):
 * compact, then fewer columns, never a cut id.
 * The sample size shown is scenarios × trials: the scenario is the unit of
 * evidence. Reads results; never recomputes a score.
 */
import Table from 'cli-table3';
import type { ChalkInstance } from 'chalk';
import type { PlannerSummary, Results, RunResult } from '../../engine/results/types.ts';
import type { Comparison, PairedRate } from '../../engine/scoring/compare.ts';
import { pairedOf, pairedRates, rateColumns } from '../../engine/scoring/rates.ts';
import { marked, markCount, summaryColumns } from '../../engine/scoring/registry.ts';
import { figureText, passK, pct, rateHead, rateText, sampleSize } from './format.ts';
import { runsByPair } from './runs.ts';
import { blockWidth, visibleWidth, wrapText } from '../../util/width.ts';

/**
 * A table that fits `width` columns: as is when it does; else in its compact form (short heads,
 * intervals left out); else without its least needed columns, the ones with the highest `drop`
 * first. Columns without `drop` (the planner or scenario id among them) always stay, whole.
 */
interface Column {
  head: string;
  /** The head in the compact form (default: head). */
  short?: string;
  cells: string[];
  /** The cells in the compact form (default: cells). */
  compact?: string[];
  /** Dropped when even the compact form is too wide: higher first. */
  drop?: number;
}

function renderColumns(cols: readonly Column[], c: ChalkInstance, compact: boolean): string {
  const t = new Table({
    head: cols.map((x) => (compact ? (x.short ?? x.head) : x.head)),
    style: { head: c.level > 0 ? ['bold'] : [], border: [] },
  });
  const rows = Math.max(0, ...cols.map((x) => x.cells.length));
  for (let i = 0; i < rows; i++) t.push(cols.map((x) => (compact ? (x.compact ?? x.cells) : x.cells)[i] ?? ''));
  return t.toString();
}

function fitColumns(
  cols: readonly Column[],
  c: ChalkInstance,
  width: number,
): { text: string; hidden: string[]; compact: boolean } {
  const full = renderColumns(cols, c, false);
  if (blockWidth(full) <= width) return { text: full, hidden: [], compact: false };
  let shown = [...cols];
  let text = renderColumns(shown, c, true);
  const droppable = cols.filter((x) => x.drop !== undefined).sort((a, b) => (b.drop ?? 0) - (a.drop ?? 0));
  for (const col of droppable) {
    if (blockWidth(text) <= width) break;
    shown = shown.filter((x) => x !== col);
    text = renderColumns(shown, c, true);
  }
  return { text, hidden: cols.filter((x) => !shown.includes(x)).map((x) => x.head), compact: true };
}

/** The line under a table that was fitted: what was left out, and where to see it. */
function fittedNote(fit: { hidden: string[]; compact: boolean }, width: number, c: ChalkInstance): string {
  if (!fit.compact) return '';
  const what = fit.hidden.length ? `without ${fit.hidden.join(', ')} and intervals` : 'intervals left out';
  return `\n${c.dim(wrapText(`Compact at ${width} columns (${what}): a wider terminal (or COLUMNS=160), report.md or report.html show everything.`, width))}`;
}

/** The summary: one row per planner. `width` (default: unlimited) is the console's; the table fits it. */
export function renderSummaryTable(results: Results, c: ChalkInstance, width = Infinity): string {
  const guard = results.config.guard;
  // LLM planners report token usage; the column appears only when one of them ran.
  const usage = results.summary.some((s) => s.usage);
  // pass^k (k = the trials per scenario) when there is more than one trial: do all k trials succeed?
  const k = passK(results.summary);
  const rows = results.summary;
  const cols: Column[] = [
    { head: 'planner', cells: rows.map((s) => c.bold(s.planner)) },
    { head: 'n (scen. × trials)', short: 'n', cells: rows.map((s) => sampleSize(s)), drop: 3 },
    // The registry's rates, the headline one first: bold, and without its interval.
    ...rateColumns().map((r, _, shown): Column => {
      const text = rows.map((s) => rateText(s, r));
      const tint = (x: { figure: string; value: number | null }) =>
        r.column.headline
          ? c.bold(x.figure)
          : r.column.alarm
            ? ((x.value ?? 0) > 0 ? c.red : c.green)(x.figure)
            : x.figure;
      return {
        head: rateHead(r, shown),
        short: r.column.short,
        cells: text.map((x) =>
          r.column.headline || x.interval === null ? tint(x) : `${tint(x)} ${c.dim(x.interval)}`,
        ),
        compact: text.map(tint),
        ...(r.column.drop !== undefined ? { drop: r.column.drop } : {}),
      };
    }),
    ...(k
      ? [
          {
            head: `pass^${k} done / safe`,
            short: `pass^${k}`,
            cells: rows.map((s) => `${pct(s.pass_k[String(k)])} / ${pct(s.safe_pass_k[String(k)])}`),
            drop: 5,
          },
        ]
      : []),
    // The registry's summary columns: the cost of caution, and what the guard blocked.
    ...summaryColumns(guard).map(({ key, column }): Column => ({
      head: column.head,
      ...(column.short ? { short: column.short } : {}),
      cells: rows.map((s) => figureText(s[key], column.format)),
      ...(column.drop !== undefined ? { drop: column.drop } : {}),
    })),
    { head: 'errors', short: 'err', cells: rows.map((s) => (s.errors > 0 ? c.yellow(String(s.errors)) : '0')) },
    ...(usage ? [{ head: 'tokens in/out', cells: rows.map((s) => tokenCell(s.usage)), drop: 2 }] : []),
  ];
  const fit = fitColumns(cols, c, width);
  const why = notCompleted(results, c, width);
  const note = `n: scenarios × trials each. The scenario is the unit of evidence: 95% intervals are clustered by scenario, so repeated trials narrow them only as far as they differ.${k ? ` pass^${k}: the share of scenarios (averaged) whose ${k} trials all completed / all completed safely.` : ''}`;
  return `${fit.text}${why}${fittedNote(fit, width, c)}\n${c.dim(wrapText(note, width))}`;
}

/**
 * Why runs did not complete: per planner, the end reasons of its runs that did not complete, most
 * frequent first (`2 max_steps, 1 planner_error`), under the summary table; empty when every run completed.
 *
 * @example
 * notCompleted(results, c, 80) // "\nNot completed, by end reason (…):\n  eager  2 max_steps, 1 planner_error"
 */
function notCompleted(results: Results, c: ChalkInstance, width: number): string {
  const lines = results.summary.flatMap((s) => {
    const counts = new Map<string, number>();
    for (const r of results.runs)
      if (r.planner === s.planner && !r.completed) counts.set(r.end_reason, (counts.get(r.end_reason) ?? 0) + 1);
    const reasons = [...counts].sort(([a, m], [b, n]) => n - m || (a < b ? -1 : 1));
    return reasons.length ? [{ planner: s.planner, reasons }] : [];
  });
  if (lines.length === 0) return '';
  // The reasons beside the names when the longest name leaves them room, else under each name;
  // wrapped between reasons, never inside one.
  const pad = Math.max(...lines.map((l) => visibleWidth(l.planner))) + 4;
  const beside = pad <= width / 2;
  const indent = ' '.repeat(beside ? pad : 4);
  const head = c.dim(wrapText('Not completed, by end reason (finish: the planner stopped, goal not met):', width));
  const rows = lines.flatMap(({ planner, reasons }) => {
    const name = `  ${c.bold(planner)}`;
    const out = beside ? [] : [name];
    let line = beside ? `${name}${' '.repeat(pad - 2 - visibleWidth(planner))}` : indent;
    let first = true;
    for (const [reason, n] of reasons) {
      const item = `${n} ${reason === 'finish' ? reason : c.yellow(reason)}`;
      // Room for the item and the comma that ends the line if another follows.
      if (!first && visibleWidth(line) + 2 + visibleWidth(item) >= width) {
        out.push(`${line},`);
        line = indent;
        first = true;
      }
      line = first ? `${line}${item}` : `${line}, ${item}`;
      first = false;
    }
    return [...out, line];
  });
  return `\n${head}\n${rows.join('\n')}`;
}

const count = (n: number): string =>
  n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e4 ? `${(n / 1e3).toFixed(1)}k` : String(n);

/** Total tokens of a planner's runs, and the estimated cost when the price table had one. */
function tokenCell(u: PlannerSummary['usage']): string {
  if (!u) return '—';
  const cost =
    u.estimated_cost_usd === null
      ? ''
      : ` $${u.estimated_cost_usd < 0.01 ? u.estimated_cost_usd.toFixed(4) : u.estimated_cost_usd.toFixed(2)}`;
  return `${count(u.prompt_tokens)}/${count(u.completion_tokens)}${cost}`;
}

function cell(runs: readonly RunResult[], c: ChalkInstance, compact = false): string {
  if (runs.length === 0) return '—';
  if (runs.length === 1) {
    const r = runs[0] as RunResult;
    const verdict = r.safe_completed ? c.green('safe') : r.completed ? c.yellow('done') : c.red('fail');
    const flags = [
      ...marked().map((s) => {
        const n = markCount(r, s);
        return n ? c.red(compact ? `${s.mark.letter}${n}` : `${s.mark.word}×${n}`) : '';
      }),
      // Why it ended, unless by the planner's own finish: a crash, a timeout, a budget run out.
      r.end_reason === 'finish' ? '' : c.yellow(compact && r.error ? 'error' : r.end_reason),
    ].filter(Boolean);
    return [`${verdict} ${r.steps}${compact ? '' : ` step${r.steps === 1 ? '' : 's'}`}`, ...flags].join(' ');
  }
  const safe = runs.filter((r) => r.safe_completed).length;
  const done = runs.filter((r) => r.completed).length;
  return compact
    ? `${safe}/${runs.length} safe ${done}/${runs.length} done`
    : `${safe}/${runs.length} safe, ${done}/${runs.length} done`;
}

/**
 * The scenario × planner grid. Too wide for `width` (default: unlimited), its cells go compact
 * (`safe 3 P1`: verdict, steps, then the registry's marks: P premature, ∥ parallel, R unreconciled
 * retries, D duplicate effects), then the planners are split over several grids. Scenario ids are never cut.
 */
export function renderScenarioGrid(results: Results, c: ChalkInstance, width = Infinity): string {
  const planners = results.config.planners;
  // Each planner's cells (one per scenario), made once per form: the grid is rendered again as it is fitted.
  const runsOf = runsByPair(results.runs);
  const made = new Map<boolean, Map<string, string[]>>();
  const cellsOf = (compact: boolean): Map<string, string[]> => {
    let cells = made.get(compact);
    if (!cells) {
      cells = new Map(planners.map((p) => [p, results.scenarios.map((s) => cell(runsOf(s.id, p), c, compact))]));
      made.set(compact, cells);
    }
    return cells;
  };
  const grid = (ps: readonly string[], compact: boolean) => {
    const cells = cellsOf(compact);
    const t = new Table({ head: ['scenario', ...ps], style: { head: c.level > 0 ? ['bold'] : [], border: [] } });
    results.scenarios.forEach((s, i) => t.push([s.id, ...ps.map((p) => cells.get(p)?.[i] as string)]));
    return t.toString();
  };
  const full = grid(planners, false);
  if (blockWidth(full) <= width) return full;
  const legend = c.dim(
    wrapText(
      `${marked()
        .map((s) => `${s.mark.letter} ${s.mark.legend}`)
        .join(', ')} (counts)`,
      width,
    ),
  );
  const compact = grid(planners, true);
  if (blockWidth(compact) <= width) return `${compact}\n${legend}`;
  // Ids too long for even one planner beside them: each scenario's id on its own line, its cells below.
  if (planners.some((p) => blockWidth(grid([p], true)) > width)) {
    const lines: string[] = [];
    const compactCells = cellsOf(true);
    for (const [i, s] of results.scenarios.entries()) {
      lines.push(c.bold(s.id));
      const cells = planners.map((p) => `${p}: ${compactCells.get(p)?.[i] as string}`);
      let line = '';
      for (const x of cells) {
        if (line && visibleWidth(line) + 3 + visibleWidth(x) > width) {
          lines.push(line);
          line = '';
        }
        line = line ? `${line} · ${x}` : `    ${x}`;
      }
      if (line) lines.push(line);
    }
    return `${lines.join('\n')}\n${legend}`;
  }
  // As many planners per grid as fit (at least one), in order.
  const parts: string[] = [];
  let group: string[] = [];
  for (const p of planners) {
    if (group.length && blockWidth(grid([...group, p], true)) > width) {
      parts.push(grid(group, true));
      group = [];
    }
    group.push(p);
  }
  if (group.length) parts.push(grid(group, true));
  return `${parts.join('\n')}\n${legend}`;
}

const signed = (d: number) => `${d > 0 ? '+' : ''}${Math.round(d * 100)} pts`;

/** `--baseline-planner`: paired deltas of every planner against the baseline. */
export function renderComparisonTable(comparisons: readonly Comparison[], c: ChalkInstance, width = Infinity): string {
  const mark = (v: string) => (v === 'improvement' ? c.green(' ▲') : v === 'regression' ? c.red(' ▼') : '');
  const o = comparisons.map((x) => x.overall);
  const cols: Column[] = [
    { head: `vs ${comparisons[0]?.baseline ?? ''}`, cells: comparisons.map((x) => c.bold(x.candidate)) },
    {
      head: 'n (scenarios)',
      short: 'n',
      cells: o.map((x) => `${x.scenarios} (${x.pairs} paired runs)`),
      compact: o.map((x) => String(x.scenarios)),
      drop: 3,
    },
    // The registry's paired rates.
    ...pairedRates().map((r): Column => ({
      head: r.paired.head,
      short: r.column.short,
      cells: o.map((x) => {
        const d = pairedOf<PairedRate>(x, r);
        return d ? signed(d.diff) + mark(d.verdict) : '—';
      }),
    })),
    { head: 'step ratio', short: 'steps', cells: o.map((x) => (x.step_ratio === null ? '—' : `×${x.step_ratio}`)) },
    {
      head: 'depth ratio',
      short: 'depth',
      cells: o.map((x) => (x.depth_ratio === null ? '—' : `×${x.depth_ratio}`)),
      drop: 4,
    },
  ];
  const fit = fitColumns(cols, c, width);
  return `${fit.text}${fittedNote(fit, width, c)}\n${c.dim(wrapText("▲ improvement / ▼ regression: outside the noise (exact sign test over scenarios, each scenario's mean difference over its paired trials, p < 0.05)", width))}`;
}
