/**
 * `oneway audit`: real sessions scored with the evaluation's behaviour scores. A guard's journal
 * (or any run record) is read session by session, and each session's calls are scored by the
 * evaluation's own rules (engine/scoring: `scoreRunWithSteps`, the function an evaluation's run is
 * scored with): premature calls by class, parallel irreversible calls, unreconciled retries,
 * duplicate effects; uncertain items are recover's (an ambiguous failure or a lost intent no
 * reconciling call settled). From an observing guard (`--observe`), what the policy would have
 * refused or asked about; from an enforcing one, what it blocked. Figures per session and per tool,
 * and their total; `--fail-on` gates over them.
 */
import type { CallEvent, RecordEvent } from '../../core/record.ts';
import type { ToolClass } from '../../core/scenario.ts';
import { compareOp, type FailOnGate } from '../../engine/gates/fail-on.ts';
import { sessionsOf, type ParsedRecord } from '../../engine/record/reader.ts';
import { scoreRunWithSteps } from '../../engine/scoring/metrics.ts';
import { buildChecklist } from '../recover/checklist.ts';

/** The figures of a session, a tool, or all of them. */
export interface AuditFigures {
  /** Calls attempted (forwarded, or refused by an enforcing guard). */
  calls: number;
  irreversible_calls: number;
  /** Attempts made before every precondition held (in what the guard knew), by class. */
  premature: Record<ToolClass, number>;
  /** Irreversible attempts made together with another call of the session. */
  parallel_irreversible: number;
  /** Irreversible calls repeated after an ambiguous failure no reconciling call had answered. */
  unreconciled_retries: number;
  /** Irreversible or compensable effects applied again for the same call. */
  duplicate_effects: number;
  /** Calls that may or may not have taken effect (ambiguous failure, lost intent), not settled. */
  uncertain: number;
  /** Observing: calls the policy would have refused; and those it would have asked a person about. */
  would_refuse: number;
  would_ask: number;
  /** Enforcing: calls the guard refused. */
  blocked: number;
}

interface AuditSession extends AuditFigures {
  journal: string;
  session: string;
  /** The declarations' id (the scenario, or the tools file's name). */
  scenario: string;
  /** Whether the guard only observed (nothing refused). */
  observe: boolean;
  started_at: string | null;
}

interface AuditTool extends AuditFigures {
  tool: string;
  class: ToolClass;
}

export interface Audit {
  schema_version: 1;
  journals: string[];
  sessions: AuditSession[];
  tools: AuditTool[];
  total: AuditFigures;
}

/** The figures `--fail-on` may name: the counts, and premature by class. */
export const AUDIT_METRICS = [
  'calls',
  'irreversible_calls',
  'premature',
  'premature_irreversible',
  'premature_compensable',
  'premature_reversible',
  'parallel_irreversible',
  'unreconciled_retries',
  'duplicate_effects',
  'uncertain',
  'would_refuse',
  'would_ask',
  'blocked',
] as const;
type AuditMetric = (typeof AUDIT_METRICS)[number];

const zero = (): AuditFigures => ({
  calls: 0,
  irreversible_calls: 0,
  premature: { irreversible: 0, compensable: 0, reversible: 0 },
  parallel_irreversible: 0,
  unreconciled_retries: 0,
  duplicate_effects: 0,
  uncertain: 0,
  would_refuse: 0,
  would_ask: 0,
  blocked: 0,
});

function add(into: AuditFigures, f: AuditFigures): void {
  for (const k of AUDIT_FIELDS) into[k] += f[k];
  for (const c of CLASSES) into.premature[c] += f.premature[c];
}

const CLASSES: readonly ToolClass[] = ['irreversible', 'compensable', 'reversible'];
const AUDIT_FIELDS = [
  'calls',
  'irreversible_calls',
  'parallel_irreversible',
  'unreconciled_retries',
  'duplicate_effects',
  'uncertain',
  'would_refuse',
  'would_ask',
  'blocked',
] as const satisfies readonly (keyof AuditFigures)[];

/** A figure by its gate name. */
function figure(f: AuditFigures, metric: AuditMetric): number {
  if (metric === 'premature') return CLASSES.reduce((n, c) => n + f.premature[c], 0);
  if (metric.startsWith('premature_')) return f.premature[metric.slice('premature_'.length) as ToolClass];
  return f[metric as (typeof AUDIT_FIELDS)[number]];
}

/** One session scored: its figures, and each call's tool and class with what it counted for. */
function scoreSession(record: ParsedRecord): { figures: AuditFigures; perCall: Map<CallEvent, AuditFigures> } {
  // The calls as recover reads them (an intent with no outcome is the ambiguous failure it stands for).
  const events: RecordEvent[] = [
    record.start,
    ...record.events.filter((e) => e.type !== 'run_start' && e.type !== 'call' && e.type !== 'intent'),
    ...record.calls,
  ];
  const { metrics, steps } = scoreRunWithSteps(events, record.end?.completed ?? false);
  const uncertain = new Set(
    buildChecklist(record)
      .items.filter((i) => i.uncertain)
      .map((i) => i.step),
  );
  const figures = zero();
  const perCall = new Map<CallEvent, AuditFigures>();
  for (const c of record.calls) {
    const f = zero();
    f.calls = 1;
    if (c.class === 'irreversible') f.irreversible_calls = 1;
    if (steps.premature.has(c.step)) f.premature[c.class] = 1;
    if (steps.parallel_irreversible.has(c.step)) f.parallel_irreversible = 1;
    if (steps.unreconciled_retries.has(c.step)) f.unreconciled_retries = 1;
    if (steps.duplicate_effects.has(c.step)) f.duplicate_effects = 1;
    if (uncertain.has(c.step)) f.uncertain = 1;
    if (c.would?.decision === 'refuse') f.would_refuse = 1;
    if (c.would?.decision === 'ask') f.would_ask = 1;
    if (c.status === 'blocked') f.blocked = 1;
    perCall.set(c, f);
    add(figures, f);
  }
  // The registry's values are the scores: the per-call split above must add up to them.
  const sums: [string, number, number][] = [
    ['premature', figure(figures, 'premature'), CLASSES.reduce((n, k) => n + metrics.premature[k], 0)],
    ['parallel_irreversible', figures.parallel_irreversible, metrics.parallel_irreversible],
    ['unreconciled_retries', figures.unreconciled_retries, metrics.unreconciled_retries],
    ['duplicate_effects', figures.duplicate_effects, metrics.duplicate_effects],
  ];
  for (const [name, mine, scored] of sums)
    if (mine !== scored) throw new Error(`audit: ${name} per call (${mine}) differs from the score (${scored})`);
  return { figures, perCall };
}

/**
 * Audits records (journals, or run records): figures per session, per tool, and in total.
 *
 * @example
 * const { records } = readRecords(['journals/'], process.cwd());
 * auditRecords(records).total.premature.irreversible // premature irreversible calls in every session
 */
export function auditRecords(records: readonly ParsedRecord[]): Audit {
  const sessions: AuditSession[] = [];
  const tools = new Map<string, AuditTool>();
  const total = zero();
  for (const r of records) {
    for (const { session, record } of sessionsOf(r)) {
      const { figures, perCall } = scoreSession(record);
      sessions.push({
        journal: r.file,
        session,
        scenario: r.start.scenario,
        observe: r.start.journal?.observe === true,
        started_at: r.start.journal?.started_at ?? null,
        ...figures,
      });
      add(total, figures);
      for (const [c, f] of perCall) {
        let t = tools.get(c.tool);
        if (!t) tools.set(c.tool, (t = { tool: c.tool, class: c.class, ...zero() }));
        add(t, f);
      }
    }
  }
  return {
    schema_version: 1,
    journals: records.map((r) => r.file),
    sessions,
    tools: [...tools.values()].sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0)),
    total,
  };
}

/** A gate that failed: what it named, the figure, and the sentence the CLI prints. */
export interface AuditGateFailure {
  gate: string;
  tool: string | null;
  value: number;
  message: string;
}

/**
 * `--fail-on` over an audit: a gate fails when its condition holds over the total, or, with a
 * `TOOL:` prefix, over that tool's figures (a tool no session called has figures of 0).
 */
export function auditGates(audit: Audit, gates: readonly FailOnGate[]): AuditGateFailure[] {
  const out: AuditGateFailure[] = [];
  for (const g of gates) {
    const tool = g.planner;
    const figures = tool === null ? audit.total : (audit.tools.find((t) => t.tool === tool) ?? zero());
    const value = figure(figures, g.metric as AuditMetric);
    if (compareOp(value, g.op, g.value))
      out.push({
        gate: g.source,
        tool,
        value,
        message: `gate failed: ${tool === null ? '' : `${tool} `}${g.metric} = ${value} (fails when ${g.op} ${g.value})`,
      });
  }
  return out;
}
