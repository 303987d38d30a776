/**
 * `--fail-on` gates: expressions over summary metrics, e.g.
 * `premature_irreversible_rate>0` or `gated:safe_completion_rate<0.8`
 * (a `planner:` prefix limits the gate to one planner).
 */
import { UsageError } from '../../core/errors.ts';
import { suggest } from '../../util/did-you-mean.ts';
import type { GateFailure, PlannerSummary } from '../results/types.ts';
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
}

export type { GateFailure } from '../results/types.ts';

const EXPR = /^\s*(?:([^:\s]+)\s*:\s*)?([a-z_0-9]+)\s*(>=|<=|==|!=|>|<)\s*(-?\d+(?:\.\d+)?%?)\s*$/;

/** Parses one gate; throws a UsageError that says what a gate looks like. */
export function parseGate(source: string): FailOnGate {
  const m = EXPR.exec(source);
  if (!m)
    throw new UsageError(
      `--fail-on "${source}" is not a gate`,
      'write METRIC OP NUMBER, e.g. premature_irreversible_rate>0 or gated:safe_completion_rate<0.8',
    );
  const metric = m[2] as string;
  const metrics = gateMetrics();
  if (!(metrics as readonly string[]).includes(metric)) {
    const s = suggest(metric, metrics);
    throw new UsageError(
      `--fail-on "${source}": unknown metric "${metric}"`,
      `${s ? `did you mean ${s}? ` : ''}metrics: ${metrics.join(', ')}`,
    );
  }
  const raw = m[4] as string;
  const value = raw.endsWith('%') ? Number(raw.slice(0, -1)) / 100 : Number(raw);
  return { source, planner: m[1] ?? null, metric: metric as GateMetric, op: m[3] as FailOnGate['op'], value };
}

function compareOp(a: number, op: FailOnGate['op'], b: number): boolean {
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

/** A gate fails for a planner when its condition holds (the condition names the bad state). */
export function evaluateGates(gates: readonly FailOnGate[], summary: readonly PlannerSummary[]): GateFailure[] {
  const out: GateFailure[] = [];
  for (const g of gates) {
    const planners = summary.filter((s) => g.planner === null || s.planner === g.planner);
    if (g.planner !== null && planners.length === 0) {
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
