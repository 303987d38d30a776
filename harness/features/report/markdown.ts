/**
 * `report.md`: fits a pull-request comment and `$GITHUB_STEP_SUMMARY`.
 * The sample size shown is scenarios × trials (the scenario is the unit of
 * evidence). Reads results; never recomputes a score.
 */
import type { Results, RunResult } from '../../engine/results/types.ts';
import type { Comparison, PairedRate } from '../../engine/scoring/compare.ts';
import { pairedOf, pairedRates, rateColumns } from '../../engine/scoring/rates.ts';
import { marked, markCount, summaryColumns } from '../../engine/scoring/registry.ts';
import { figureText, passK, pct, rateHead, rateText, sampleSize } from './format.ts';
import { runsByPair } from './runs.ts';
import { plural } from '../../util/plural.ts';

const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function row(cells: readonly string[]): string {
  return `| ${cells.map(esc).join(' | ')} |`;
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  return [row(head), row(head.map(() => '---')), ...rows.map(row)].join('\n');
}

function points(d: PairedRate): string {
  const sign = d.diff > 0 ? '+' : '';
  const mark = d.verdict === 'improvement' ? ' ▲' : d.verdict === 'regression' ? ' ▼' : '';
  return `${sign}${Math.round(d.diff * 100)} pts${mark}`;
}

function comparisonTable(comparisons: readonly Comparison[], title: string): string {
  if (comparisons.length === 0) return '';
  const paired = pairedRates();
  const rows = comparisons.map((c) => [
    c.candidate,
    `${c.overall.scenarios} (${c.overall.pairs} paired runs)`,
    ...paired.map((r) => {
      const d = pairedOf<PairedRate>(c.overall, r);
      return d ? points(d) : '—';
    }),
    c.overall.step_ratio === null ? '—' : `×${c.overall.step_ratio}`,
    c.overall.depth_ratio === null ? '—' : `×${c.overall.depth_ratio}`,
  ]);
  return `\n### ${title}\n\n${table(['planner', 'n (scenarios)', ...paired.map((r) => r.label), 'steps', 'depth'], rows)}\n\n▲ improvement, ▼ regression: outside the noise (exact sign test over scenarios on each scenario's mean difference across its paired trials, p < 0.05); unmarked differences are within it. n is the number of scenarios, not of runs.\n`;
}

function cell(runs: readonly RunResult[]): string {
  if (runs.length === 0) return '—';
  const safe = runs.filter((r) => r.safe_completed).length;
  const done = runs.filter((r) => r.completed).length;
  const verdict =
    safe === runs.length
      ? '✅ safe'
      : done === runs.length
        ? '⚠️ done'
        : done === 0
          ? '❌ fail'
          : `${done}/${runs.length} done`;
  // A pull-request comment shows only the brief marks (premature irreversible calls), summed over trials.
  const marks = marked()
    .filter((s) => s.mark.brief)
    .map((s) => [runs.reduce((a, r) => a + markCount(r, s), 0), s.mark.word] as const)
    .filter(([n]) => n > 0);
  return `${verdict}${marks.map(([n, word]) => ` · ${n} ${word}`).join('')}`;
}

export function renderMarkdown(results: Results): string {
  const { config } = results;
  const head = `## oneway: ${plural(results.runs.length, 'run')} · ${config.planners.join(', ')} · ${plural(results.scenarios.length, 'scenario')} × ${plural(config.trials, 'trial')} · seed ${config.seed}${config.guard ? ' · guard on' : ''}${results.interrupted ? ' · **interrupted**' : ''}`;
  const k = passK(results.summary);
  const columns = summaryColumns(config.guard);
  // The registry's rates, the headline one first: bold, and without its interval.
  const rated = rateColumns();
  const summary = table(
    [
      'planner',
      'n (scenarios × trials)',
      ...rated.map((r) => rateHead(r, rated)),
      ...(k ? [`pass^${k} done / safe`] : []),
      ...columns.map((x) => x.column.head),
      'errors',
    ],
    results.summary.map((s) => [
      `**${s.planner}**`,
      sampleSize(s),
      ...rated.map((r) => {
        const x = rateText(s, r);
        return r.column.headline ? `**${x.figure}**` : x.interval === null ? x.figure : `${x.figure} ${x.interval}`;
      }),
      ...(k ? [`${pct(s.pass_k[String(k)])} / ${pct(s.safe_pass_k[String(k)])}`] : []),
      ...columns.map((x) => figureText(s[x.key], x.column.format)),
      String(s.errors),
    ]),
  );
  const gates = results.gates;
  const gateLines =
    gates.expressions.length || gates.baseline
      ? `\n### Gates\n\n${gates.failures.length === 0 ? '✅ every gate held' : gates.failures.map((f) => `- ❌ ${f.message}`).join('\n')}\n`
      : '';
  const runsOf = runsByPair(results.runs);
  const grid = table(
    ['scenario', ...config.planners],
    results.scenarios.map((s) => [s.id, ...config.planners.map((p) => cell(runsOf(s.id, p)))]),
  );
  const lint = results.lint?.length ?? 0;
  const problems = [
    results.problems.length
      ? `\n> ⚠️ ${plural(results.problems.length, 'scenario file problem')} (files that did not load, or lint errors); those files were skipped.\n`
      : '',
    lint
      ? `\n> ⚠️ ${plural(lint, 'lint error')}: scenarios ran with them (\`--allow-lint-errors\`); results.json lists them under \`lint\`.\n`
      : '',
  ].join('');
  const note = `n: scenarios × trials each. The scenario is the unit of evidence: 95% intervals are clustered by scenario (Wilson at the effective sample size), so repeated trials narrow them only as far as they differ.${k ? ` pass^${k}: the chance that ${k} trials of a scenario all complete / all complete safely, averaged over scenarios.` : ''}`;
  return [
    head,
    '',
    summary,
    `\n${note}\n`,
    comparisonTable(
      results.comparisons,
      `Against \`${results.comparisons[0]?.baseline ?? ''}\` (paired by scenario and trial)`,
    ),
    comparisonTable(
      results.gates.baseline?.comparisons ?? [],
      `Against the baseline \`${results.gates.baseline?.file ?? ''}\``,
    ),
    gateLines,
    problems,
    `<details><summary>Per scenario</summary>\n\n${grid}\n\n</details>\n`,
  ]
    .filter((x) => x !== '')
    .join('\n');
}
