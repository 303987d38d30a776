/**
 * The report's smaller sections: what ran, paired comparisons, gates and
 * scenario file problems. Static markup from results.
 */
import { formatLocated, formatProblem } from '../../../core/errors.ts';
import type { Results } from '../../../engine/results/types.ts';
import type { Comparison, PairedRate } from '../../../engine/scoring/compare.ts';
import { pairedOf, pairedRates } from '../../../engine/scoring/rates.ts';
import { escapeHtml as h } from './escape.ts';

/** One line on what ran: runs, planners, scenarios × trials, seed, guard, when. */
export function renderRunInfo(results: Results): string {
  const { config } = results;
  const parts = [
    `${results.runs.length} run${results.runs.length === 1 ? '' : 's'}`,
    `${config.planners.length} planner${config.planners.length === 1 ? '' : 's'}`,
    `${results.scenarios.length} scenario${results.scenarios.length === 1 ? '' : 's'} × ${config.trials} trial${config.trials === 1 ? '' : 's'}`,
    `seed ${config.seed}`,
    config.guard
      ? `guard on${
          config.guard_policy
            ? ` (${Object.entries(config.guard_policy)
                .map(([k, v]) => `${k}: ${v}`)
                .join(', ')})`
            : ''
        }`
      : 'no guard',
    `transport ${config.transport}`,
    ...(config.shard ? [`shard ${config.shard}`] : []),
    `oneway ${results.tool.version}`,
  ];
  const when = `<time datetime="${h(results.created_at)}">${h(results.created_at)}</time>`;
  return `<p class="meta">${parts.map(h).join(' · ')} · ${when}</p>`;
}

/** Warnings that change how to read everything else: interrupted, problems, lint errors run with, escapes outside runs. */
export function renderNotices(results: Results): string {
  const out: string[] = [];
  if (results.interrupted) {
    out.push(
      `<p class="notice warn"><strong>⚠ Interrupted:</strong> the evaluation was stopped after ${results.runs.length} run${results.runs.length === 1 ? '' : 's'}; cells marked “not run” did not run. <code>oneway eval --resume</code> with the same options finishes it.</p>`,
    );
  }
  if (results.problems.length) {
    out.push(
      `<div class="notice warn"><p><strong>⚠ ${results.problems.length} scenario file problem${results.problems.length === 1 ? '' : 's'}</strong> (files that did not load, or lint errors): those files were skipped; the rest ran.</p><pre class="problems">${h(results.problems.map(formatProblem).join('\n'))}</pre></div>`,
    );
  }
  const lint = results.lint ?? [];
  if (lint.length) {
    out.push(
      `<div class="notice warn"><p><strong>⚠ ${lint.length} lint error${lint.length === 1 ? '' : 's'}</strong>: these scenarios ran with them (<code>--allow-lint-errors</code>); read their figures with that in mind.</p><pre class="problems">${h(lint.map((f) => formatLocated(f, f.severity, f.rule)).join('\n'))}</pre></div>`,
    );
  }
  if (results.unattributed_escapes > 0) {
    out.push(
      `<p class="notice warn"><strong>⚠ ${results.unattributed_escapes} sandbox escape${results.unattributed_escapes === 1 ? '' : 's'}</strong> made by code outside any run.</p>`,
    );
  }
  return out.join('');
}

function points(d: PairedRate, higherIsBetter: boolean): string {
  const sign = d.diff > 0 ? '+' : '';
  const verdict =
    d.verdict === 'improvement'
      ? '<span class="verdict good">▲ improvement</span>'
      : d.verdict === 'regression'
        ? '<span class="verdict bad">▼ regression</span>'
        : '<span class="verdict">within noise</span>';
  const title = `${d.candidate_only} scenario${d.candidate_only === 1 ? '' : 's'} higher for the candidate, ${d.baseline_only} for the baseline, ${d.ties} tied; sign test over scenarios p = ${d.p_value}; 95% CI ${Math.round(d.ci[0] * 100)} to ${Math.round(d.ci[1] * 100)} pts${higherIsBetter ? '' : ' (lower is better)'}`;
  return `<td class="num" title="${h(title)}">${sign}${Math.round(d.diff * 100)} pts ${verdict}</td>`;
}

function comparisonTable(comparisons: readonly Comparison[], caption: string): string {
  // The rate registry's paired rates.
  const paired = pairedRates();
  const rows = comparisons
    .map((c) => {
      const o = c.overall;
      return [
        '<tr>',
        `<th scope="row">${h(c.candidate)}</th>`,
        `<td class="num">${o.scenarios} <span class="ci">(${o.pairs} paired runs)</span></td>`,
        ...paired.map((r) => {
          const d = pairedOf<PairedRate>(o, r);
          return d ? points(d, r.better === 'higher') : '<td class="num">—</td>';
        }),
        `<td class="num">${o.step_ratio === null ? '—' : `×${o.step_ratio}`}</td>`,
        `<td class="num">${o.depth_ratio === null ? '—' : `×${o.depth_ratio}`}</td>`,
        '</tr>',
      ].join('');
    })
    .join('');
  return `<div class="table-wrap"><table class="summary"><caption>${caption}</caption><thead><tr><th scope="col">planner</th><th scope="col">n (scenarios)</th>${paired.map((r) => `<th scope="col">${h(r.paired.head)}</th>`).join('')}<th scope="col">steps</th><th scope="col">depth</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** `--baseline-planner` and `--baseline` comparisons, and `--fail-on` gates; empty when none were asked for. */
export function renderComparisonsAndGates(results: Results): string {
  const parts: string[] = [];
  if (results.comparisons.length) {
    parts.push(
      comparisonTable(
        results.comparisons,
        `Against <code>${h(results.comparisons[0]?.baseline ?? '')}</code>, paired by scenario and trial`,
      ),
    );
  }
  const base = results.gates.baseline;
  if (base && base.comparisons.length)
    parts.push(comparisonTable(base.comparisons, `Against the baseline <code>${h(base.file)}</code>`));
  if (parts.length)
    parts.push(
      '<p class="hint">▲ improvement, ▼ regression: outside the noise (exact sign test over scenarios on each scenario’s mean difference across its paired trials, p &lt; 0.05); other differences are within it. n is the number of scenarios, not of runs. Hover a figure for its interval.</p>',
    );
  const gates = results.gates;
  if (gates.expressions.length || base) {
    const asked = gates.expressions.length
      ? `<p>Gates: ${gates.expressions.map((e) => `<code>${h(e)}</code>`).join(', ')}${base ? `; baseline <code>${h(base.file)}</code>` : ''}</p>`
      : `<p>Baseline <code>${h(base?.file ?? '')}</code></p>`;
    const outcome =
      gates.failures.length === 0
        ? '<p class="gate pass"><span aria-hidden="true">✓</span> every gate held</p>'
        : `<ul class="gate-failures">${gates.failures.map((f) => `<li class="gate fail"><span aria-hidden="true">✗</span> <span class="visually-hidden">failed:</span> ${h(f.message)}</li>`).join('')}</ul>`;
    parts.push(`<div class="gates">${asked}${outcome}</div>`);
  }
  if (parts.length === 0) return '';
  return `<section aria-labelledby="cmp-h"><h2 id="cmp-h">Comparisons and gates</h2>${parts.join('')}</section>`;
}
