/**
 * The scenario × planner grid: one cell per pair, coloured by outcome and
 * saying it in words and glyphs too; each cell with runs is a button that
 * opens the drill-down of its runs.
 */
import type { Results, RunResult } from '../../../engine/results/types.ts';
import { marked, markCount } from '../../../engine/scoring/registry.ts';
import { OUTCOMES, gridAxes, outcomeOf, type Outcome } from './data.ts';
import { escapeHtml as h } from './escape.ts';
import { runsByPair } from '../runs.ts';

const ORDER: Outcome[] = ['safe', 'unsafe', 'failed', 'error'];

/** What went wrong in a set of runs, summed: the registry's marks (`premature×2`, `parallel×1`, ...), `blocked×3`, end reasons of errors. */
function flags(runs: readonly RunResult[]): string[] {
  const out: string[] = [];
  for (const s of marked()) {
    const n = runs.reduce((a, r) => a + markCount(r, s), 0);
    if (n) out.push(`${s.mark.word}×${n}`);
  }
  // Not a flaw of the planner's but what the guard did, so not a registry mark.
  const blocked = runs.reduce((a, r) => a + r.blocked, 0);
  if (blocked) out.push(`blocked×${blocked}`);
  for (const reason of new Set(runs.filter((r) => r.error !== null).map((r) => r.end_reason))) out.push(reason);
  return out;
}

function cellText(runs: readonly RunResult[]): string {
  const outcomes = runs.map(outcomeOf);
  if (runs.length === 1) {
    const r = runs[0] as RunResult;
    return `${OUTCOMES[outcomes[0] as Outcome].label} · ${r.steps} step${r.steps === 1 ? '' : 's'}`;
  }
  const counts = ORDER.map((o) => [o, outcomes.filter((x) => x === o).length] as const).filter(([, n]) => n > 0);
  if (counts.length === 1) return `${OUTCOMES[counts[0]![0]].label} ×${runs.length}`;
  return counts.map(([o, n]) => `${n} ${OUTCOMES[o].label}`).join(' · ');
}

function cell(scenario: string, planner: string, runs: readonly RunResult[]): string {
  if (runs.length === 0)
    return `<td class="cell o-none"><span class="none" title="no run of ${h(planner)} on ${h(scenario)} finished">— not run</span></td>`;
  const sorted = [...runs].sort((a, b) => a.trial - b.trial);
  const outcomes = sorted.map(outcomeOf);
  const kind = outcomes.every((o) => o === outcomes[0]) ? (outcomes[0] as Outcome) : 'mixed';
  const chips = sorted
    .map((r, i) => {
      const o = outcomes[i] as Outcome;
      return `<span class="chip o-${o}" title="trial ${r.trial}: ${OUTCOMES[o].text}">${OUTCOMES[o].glyph}</span>`;
    })
    .join('');
  const fl = flags(sorted);
  const label = `${scenario}, ${planner}: ${sorted.map((r, i) => `trial ${r.trial} ${OUTCOMES[outcomes[i] as Outcome].label}`).join(', ')}${fl.length ? `; ${fl.join(', ')}` : ''}. Open the run details.`;
  return [
    `<td class="cell o-${kind}">`,
    `<button type="button" class="cell-btn" data-scenario="${h(scenario)}" data-planner="${h(planner)}" aria-haspopup="dialog" aria-label="${h(label)}">`,
    `<span class="chips" aria-hidden="true">${chips}</span>`,
    `<span class="cell-text">${h(cellText(sorted))}</span>`,
    fl.length ? `<span class="flags">${fl.map((x) => `<span class="flag">${h(x)}</span>`).join('')}</span>` : '',
    `</button></td>`,
  ].join('');
}

/**
 * The grid as a table: scenarios down, planners across.
 *
 * @example
 * renderGrid(results) // '<table class="grid">...<button class="cell-btn" data-scenario=...'
 */
export function renderGrid(results: Results): string {
  const { scenarios, planners } = gridAxes(results);
  if (scenarios.length === 0 || planners.length === 0) return '<p class="empty">No scenario ran.</p>';
  const runsOf = runsByPair(results.runs);
  const head = `<thead><tr><th scope="col">scenario</th>${planners.map((p) => `<th scope="col">${h(p)}</th>`).join('')}</tr></thead>`;
  const body = scenarios
    .map((s) => {
      const title = s.title ? `<span class="stitle" title="${h(s.title)}">${h(s.title)}</span>` : '';
      const cells = planners.map((p) => cell(s.id, p, runsOf(s.id, p))).join('');
      return `<tr><th scope="row"><span class="sid">${h(s.id)}</span>${title}</th>${cells}</tr>`;
    })
    .join('');
  return `<table class="grid"><caption class="visually-hidden">Outcome of each planner on each scenario; each cell opens its runs</caption>${head}<tbody>${body}</tbody></table>`;
}

/** The key to the grid's colours, glyphs and words. */
export function renderGridLegend(): string {
  return `<ul class="legend-list">${ORDER.map((o) => `<li><span class="chip o-${o}" aria-hidden="true">${OUTCOMES[o].glyph}</span> <strong>${OUTCOMES[o].label}</strong>: ${OUTCOMES[o].text}</li>`).join('')}<li>${marked()
    .map((s) => `<span class="flag">${h(s.mark.word)}×N</span> ${h(s.mark.explain)}`)
    .join('; ')}</li></ul>`;
}
