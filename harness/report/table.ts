/**
 * The console table: one row per planner, then a scenario × planner grid.
 * The sample size shown is scenarios × trials: the scenario is the unit of
 * evidence. Reads results; never recomputes a score.
 */
import Table from 'cli-table3';
import type { ChalkInstance } from 'chalk';
import type { PlannerSummary, Results, RunResult } from '../results/types.ts';
import type { Comparison } from '../scoring/compare.ts';
import { ci, ci100, ms, num, passK, pct, sampleSize } from './format.ts';

export function renderSummaryTable(results: Results, c: ChalkInstance): string {
  const guard = results.config.guard;
  // LLM planners report token usage; the column appears only when one of them ran.
  const usage = results.summary.some((s) => s.usage);
  // pass^k (k = the trials per scenario) when there is more than one trial: do all k trials succeed?
  const k = passK(results.summary);
  const t = new Table({
    head: ['planner', 'n (scen. × trials)', 'safe completion', 'completion [95% CI]', 'premature irrev. (runs)', 'per 100 irrev.', ...(k ? [`pass^${k} done / safe`] : []), 'steps', 'depth', 'sim time', ...(guard ? ['blocked'] : []), 'errors', ...(usage ? ['tokens in/out'] : [])],
    style: { head: c.level > 0 ? ['bold'] : [], border: [] },
  });
  for (const s of results.summary) {
    const prem = s.premature_irreversible_rate;
    t.push([
      c.bold(s.planner),
      sampleSize(s),
      c.bold(pct(s.safe_completion_rate)),
      `${pct(s.completion_rate)} ${c.dim(ci(s.completion_ci))}`,
      `${(prem > 0 ? c.red : c.green)(pct(prem))} ${c.dim(ci(s.premature_irreversible_ci))}`,
      s.premature_irreversible_per_100 === null ? '—' : `${num(s.premature_irreversible_per_100)}${s.premature_irreversible_per_100_ci ? ` ${c.dim(ci100(s.premature_irreversible_per_100_ci))}` : ''}`,
      ...(k ? [`${pct(s.pass_k[String(k)])} / ${pct(s.safe_pass_k[String(k)])}`] : []),
      num(s.mean_steps),
      num(s.mean_depth),
      ms(s.mean_sim_time_ms),
      ...(guard ? [String(s.blocked)] : []),
      s.errors > 0 ? c.yellow(String(s.errors)) : '0',
      ...(usage ? [tokenCell(s.usage)] : []),
    ]);
  }
  return `${t.toString()}\n${c.dim(`n: scenarios × trials each. The scenario is the unit of evidence: 95% intervals are clustered by scenario, so repeated trials narrow them only as far as they differ.${k ? ` pass^${k}: the share of scenarios (averaged) whose ${k} trials all completed / all completed safely.` : ''}`)}`;
}

const count = (n: number): string => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e4 ? `${(n / 1e3).toFixed(1)}k` : String(n));

/** Total tokens of a planner's runs, and the estimated cost when the price table had one. */
function tokenCell(u: PlannerSummary['usage']): string {
  if (!u) return '—';
  const cost = u.estimated_cost_usd === null ? '' : ` $${u.estimated_cost_usd < 0.01 ? u.estimated_cost_usd.toFixed(4) : u.estimated_cost_usd.toFixed(2)}`;
  return `${count(u.prompt_tokens)}/${count(u.completion_tokens)}${cost}`;
}

function cell(runs: readonly RunResult[], c: ChalkInstance): string {
  if (runs.length === 0) return '—';
  if (runs.length === 1) {
    const r = runs[0] as RunResult;
    const verdict = r.safe_completed ? c.green('safe') : r.completed ? c.yellow('done') : c.red('fail');
    const flags = [
      r.premature.irreversible ? c.red(`premature×${r.premature.irreversible}`) : '',
      r.parallel_irreversible ? c.red(`parallel×${r.parallel_irreversible}`) : '',
      r.unreconciled_retries ? c.red(`retry×${r.unreconciled_retries}`) : '',
      r.duplicate_effects ? c.red(`dup×${r.duplicate_effects}`) : '',
      r.error ? c.yellow(r.end_reason) : '',
    ].filter(Boolean);
    return [`${verdict} ${r.steps} step${r.steps === 1 ? "" : "s"}`, ...flags].join(' ');
  }
  const safe = runs.filter((r) => r.safe_completed).length;
  const done = runs.filter((r) => r.completed).length;
  return `${safe}/${runs.length} safe, ${done}/${runs.length} done`;
}

export function renderScenarioGrid(results: Results, c: ChalkInstance): string {
  const planners = results.config.planners;
  const t = new Table({ head: ['scenario', ...planners], style: { head: c.level > 0 ? ['bold'] : [], border: [] } });
  for (const s of results.scenarios) {
    t.push([s.id, ...planners.map((p) => cell(results.runs.filter((r) => r.scenario === s.id && r.planner === p), c))]);
  }
  return t.toString();
}

const signed = (d: number) => `${d > 0 ? '+' : ''}${Math.round(d * 100)} pts`;

/** `--baseline-planner`: paired deltas of every planner against the baseline. */
export function renderComparisonTable(comparisons: readonly Comparison[], c: ChalkInstance): string {
  const mark = (v: string, better: boolean) => (v === 'improvement' ? c.green(' ▲') : v === 'regression' ? c.red(' ▼') : better ? '' : '');
  const t = new Table({
    head: [`vs ${comparisons[0]?.baseline ?? ''}`, 'n (scenarios)', 'completion', 'safe completion', 'premature irrev.', 'step ratio', 'depth ratio'],
    style: { head: c.level > 0 ? ['bold'] : [], border: [] },
  });
  for (const x of comparisons) {
    const o = x.overall;
    t.push([
      c.bold(x.candidate),
      `${o.scenarios} (${o.pairs} paired runs)`,
      signed(o.completion.diff) + mark(o.completion.verdict, true),
      signed(o.safe_completion.diff) + mark(o.safe_completion.verdict, true),
      signed(o.premature_irreversible.diff) + mark(o.premature_irreversible.verdict, false),
      o.step_ratio === null ? '—' : `×${o.step_ratio}`,
      o.depth_ratio === null ? '—' : `×${o.depth_ratio}`,
    ]);
  }
  return `${t.toString()}\n${c.dim('▲ improvement / ▼ regression: outside the noise (exact sign test over scenarios, each scenario\'s mean difference over its paired trials, p < 0.05)')}`;
}
