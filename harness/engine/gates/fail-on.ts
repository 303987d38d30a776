/**
 * `--fail-on` gates: expressions over summary metrics, e.g.
 * `premature_irreversible_rate>0` or `gated:safe_completion_rate<0.8`
 * (a `planner:` prefix limits the gate to one planner).
 */
import { UsageError } from '../../core/errors.ts';
import { suggest } from '../../util/did-you-mean.ts';
import type { GateFailure, PlannerSummary, SkippedGate } from '../results/types.ts';
import { figureList, type FigureName } from '../scoring/aggregate.ts';
import { rateGateMetrics, type RateGateMetric } from '../scoring/rates.ts';

/** The sample size of a planner's summary: a gate may name it. */
const SAMPLE_FIGURES = ['runs', 'scenarios'] as const;

/**
 * What a gate may name, in summary order: the sample size, the gateable rates of the rate registry
 * (a share's count, then the rate), then the gateable figures of the score registry and `errors`.
 * Read from the registries on each call, so a gate sees every entry.
 */
function gateMetrics(): GateMetric[] {
  return [
    ...SAMPLE_FIGURES,
    ...(rateGateMetrics() as RateGateMetric[]),
    ...figureList()
      .filter((f) => f.gate)
      .map((f) => f.key),
  ];
}

/** What a gate may name (see `gateMetrics`), as the registries list it when oneway loads. */
export const GATE_METRICS: readonly GateMetric[] = gateMetrics();
export type GateMetric = (typeof SAMPLE_FIGURES)[number] | RateGateMetric | FigureName;

export interface FailOnGate {
  source: string;
  planner: string | null;
  metric: GateMetric;
  op: '>' | '>=' | '<' | '<=' | '==' | '!=';
  value: number;
  /**
   * A standing gate (from the config file): when its planner is not in this evaluation it is
   * skipped with a note, not failed, so an ad-hoc run of other planners is not refused by it. A gate
   * given for this run (a flag, evaluate()) fails instead: its planner name is likely a typo.
   */
  optional?: true;
}

export type { GateFailure } from '../results/types.ts';

const EXPR = /^\s*(?:([^:\s]+)\s*:\s*)?([a-z_0-9]+)\s*(>=|<=|==|!=|>|<)\s*(-?\d+(?:\.\d+)?%?)\s*$/;

/**
 * Parses one gate; throws a UsageError that says what a gate looks like. `optional`: a standing
 * gate (the config file's), skipped when its planner is not in the evaluation (see `FailOnGate`).
 */
export function parseGate(
  source: string,
  opts: { optional?: boolean; metrics?: readonly string[]; example?: string } = {},
): FailOnGate {
  const m = EXPR.exec(source);
  if (!m)
    throw new UsageError(
      `--fail-on "${source}" is not a gate`,
      `write METRIC OP NUMBER, e.g. ${opts.example ?? 'premature_irreversible_rate>0 or gated:safe_completion_rate<0.8'}`,
    );
  const metric = m[2] as string;
  // Another command's figures (oneway audit's) take the same syntax over their own names.
  const metrics = opts.metrics ?? gateMetrics();
  if (!(metrics as readonly string[]).includes(metric)) {
    const s = suggest(metric, metrics);
    throw new UsageError(
      `--fail-on "${source}": unknown metric "${metric}"`,
      `${s ? `did you mean ${s}? ` : ''}metrics: ${metrics.join(', ')}`,
    );
  }
  const raw = m[4] as string;
  const value = raw.endsWith('%') ? Number(raw.slice(0, -1)) / 100 : Number(raw);
  return {
    source,
    planner: m[1] ?? null,
    metric: metric as GateMetric,
    op: m[3] as FailOnGate['op'],
    value,
    ...(opts.optional ? { optional: true as const } : {}),
  };
}

export function compareOp(a: number, op: FailOnGate['op'], b: number): boolean {
  switch (op) {
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '==':
      return a === b;
    default:
      return a !== b;
  }
}

/** Whether a gate names a planner this evaluation does not have. */
const plannerAbsent = (g: FailOnGate, summary: readonly PlannerSummary[]): g is FailOnGate & { planner: string } =>
  g.planner !== null && !summary.some((s) => s.planner === g.planner);

/**
 * The standing gates (`optional`) that name a planner not in this evaluation: skipped, each with
 * the note the CLI prints and results.json keeps (`gates.skipped`).
 */
export function skippedGates(gates: readonly FailOnGate[], summary: readonly PlannerSummary[]): SkippedGate[] {
  return gates
    .filter((g) => g.optional && plannerAbsent(g, summary))
    .map((g) => ({
      gate: g.source,
      planner: g.planner as string,
      message: `gate ${g.source} (from the config file) skipped: planner "${g.planner}" is not in this evaluation`,
    }));
}

/**
 * A gate fails for a planner when its condition holds (the condition names the bad state), when
 * every run of the planner ended in an error (no evidence: its figures measure nothing, and a
 * planner that crashes on every run scores no premature call), and when it names a planner not in
 * this evaluation, unless it is a standing gate (`skippedGates`). A gate on `errors` itself is
 * judged by its condition only.
 */
export function evaluateGates(gates: readonly FailOnGate[], summary: readonly PlannerSummary[]): GateFailure[] {
  const out: GateFailure[] = [];
  for (const g of gates) {
    const planners = summary.filter((s) => g.planner === null || s.planner === g.planner);
    if (plannerAbsent(g, summary) && !g.optional) {
      out.push({
        gate: g.source,
        planner: g.planner,
        metric: g.metric,
        value: null,
        threshold: `${g.op} ${g.value}`,
        message: `gate ${g.source}: planner "${g.planner}" is not in this evaluation`,
      });
    }
    for (const s of planners) {
      if (g.metric !== 'errors' && s.runs > 0 && s.errors === s.runs) {
        out.push({
          gate: g.source,
          planner: s.planner,
          metric: g.metric,
          value: null,
          threshold: `${g.op} ${g.value}`,
          message: `gate ${g.source}: no evidence for ${s.planner}: all ${s.runs} of its runs ended in an error, so its ${g.metric} measures nothing (hint: each run's error is in results.json; eval --verbose prints them)`,
        });
        continue;
      }
      const v = s[g.metric];
      if (v !== null && compareOp(v, g.op, g.value)) {
        out.push({
          gate: g.source,
          planner: s.planner,
          metric: g.metric,
          value: v,
          threshold: `${g.op} ${g.value}`,
          message: `gate failed: ${s.planner} ${g.metric} = ${v} (fails when ${g.op} ${g.value})`,
        });
      }
    }
  }
  return out;
}
