/**
 * What must hold for every plan (or every run of a planner), each selectable
 * by name with `--property`. A property looks at one run and may ask for the
 * same plan again with the same seed (another transport, through the guard).
 * It answers `true`, or a message saying what went wrong.
 */
import type { RecordEvent } from '../../core/record.ts';
import type { Sandbox } from '../../engine/sandbox/sandbox.ts';
import type { TransportName } from '../../engine/sandbox/transport.ts';
import type { PlanItem, Scenario } from '../../core/scenario.ts';
import { itemCalls } from './arbitraries.ts';
import type { Owner } from './fault.ts';
import { oracleScores, recordedScores } from './oracle.ts';
import { rollBack } from './rollback.ts';
import { plural } from '../../util/plural.ts';

/** `true` when the property holds; otherwise what went wrong. */
export type Verdict = true | string;

/** One run as a property sees it: its record, and what reached its sandbox (null when known only from a record file). */
export interface PropertyRun {
  events: RecordEvent[];
  received: Sandbox['received'] | null;
}

export interface PropertyContext {
  scenario: Scenario;
  run: PropertyRun;
  /** The plan the run replays; undefined when a planner decided (or the run is known only from its record). */
  plan?: readonly PlanItem[];
  /** Whether `run` went through the guard. */
  guarded: boolean;
  transport: TransportName;
  /** The same plan (or planner) with the same seed again, changing only what is asked. */
  rerun(change?: { guard?: boolean; transport?: TransportName }): Promise<PropertyRun>;
}

export interface FuzzProperty {
  name: string;
  description: string;
  /** The module it came from, for a user property (what `--property` names to select it again). */
  source?: string;
  /**
   * Who is at fault when it fails (fault.ts): what it checks. Default `planner`: a property of a run
   * says what a planner must never do.
   */
  owner?: Owner;
  check(ctx: PropertyContext): Verdict | Promise<Verdict>;
}

/** `tool(key=value, ...)`, short, for messages. */
const callText = (tool: string, args: Record<string, unknown>) =>
  `${tool}(${Object.entries(args)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ')
    .slice(0, 200)})`;

/** A tool's effective class in a run, from its run_start (unknown tools count as irreversible). */
function classOf(events: readonly RecordEvent[], tool: string): string {
  const start = events[0];
  return (start?.type === 'run_start' && start.tools.find((t) => t.name === tool)?.class) || 'irreversible';
}

/** Whether two JSON values are equal as JSON text would be (key order included, `undefined` members ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const y = b as unknown[];
    if (a.length !== y.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i] ?? null, y[i] ?? null)) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const kx = Object.keys(x).filter((k) => x[k] !== undefined);
  const ky = Object.keys(y).filter((k) => y[k] !== undefined);
  if (kx.length !== ky.length) return false;
  for (let i = 0; i < kx.length; i++)
    if (kx[i] !== ky[i] || !sameJson(x[kx[i] as string], y[ky[i] as string])) return false;
  return true;
}

/** Where two records first differ, for a message. */
function firstDifference(a: readonly RecordEvent[], b: readonly RecordEvent[]): string | undefined {
  // Equal records are the common case: compared without building their text; the text only to say where they differ.
  if (a.length === b.length && sameJson(a, b)) return undefined;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = JSON.stringify(a[i]);
    const y = JSON.stringify(b[i]);
    if (x !== y) {
      const what = a[i]?.type ?? b[i]?.type ?? 'event';
      return `event ${i + 1} (${what}) differs:\n  ${(x ?? '(none)').slice(0, 400)}\n  ${(y ?? '(none)').slice(0, 400)}`;
    }
  }
  return undefined;
}

export const scoringOracle: FuzzProperty = {
  name: 'scoring-oracle',
  owner: 'oneway',
  description:
    'every score (premature per class, parallel, speculative, unreconciled retries, dangling, completion, safe completion, blocked, rejected) equals an independent re-computation from the record',
  check({ run, scenario }) {
    const recorded = recordedScores(run.events);
    if (!recorded) return 'the record has no run_end';
    const oracle = oracleScores(run.events, scenario);
    const diffs: string[] = [];
    for (const cls of ['irreversible', 'compensable', 'reversible'] as const) {
      if (recorded.premature[cls] !== oracle.premature[cls])
        diffs.push(`premature ${cls}: record ${recorded.premature[cls]}, oracle ${oracle.premature[cls]}`);
    }
    for (const k of Object.keys(oracle) as (keyof typeof oracle)[]) {
      if (k !== 'premature' && recorded[k] !== oracle[k])
        diffs.push(`${k}: record ${String(recorded[k])}, oracle ${String(oracle[k])}`);
    }
    return diffs.length === 0 ? true : diffs.join('; ');
  },
};

export const guardSoundness: FuzzProperty = {
  name: 'guard-soundness',
  owner: 'oneway',
  description: 'through the guard, no premature (or parallel) irreversible call reaches the sandbox',
  async check(ctx) {
    // A plan that calls no irreversible tool cannot get one past the guard: no need to run it again.
    if (
      !ctx.guarded &&
      ctx.plan &&
      !ctx.plan.some((item) => itemCalls(item).some((c) => classOf(ctx.run.events, c.tool) === 'irreversible'))
    )
      return true;
    const run = ctx.guarded ? ctx.run : await ctx.rerun({ guard: true });
    // What the sandbox saw, not what the record says: a guard that records one thing and lets another through is caught.
    const received =
      run.received ??
      run.events.flatMap((e) =>
        e.type === 'call' && e.status !== 'blocked'
          ? [{ tool: e.tool, args: e.args, class: e.class, missing: e.preconditions.missing, batch_size: e.batch_size }]
          : [],
      );
    for (const r of received) {
      if (r.class !== 'irreversible') continue;
      if (r.missing.length > 0)
        return `premature irreversible call reached the sandbox through the guard: ${callText(r.tool, r.args)}, missing ${r.missing.join(', ')}`;
      if (r.batch_size > 1)
        return `irreversible call reached the sandbox in a batch of ${r.batch_size} through the guard: ${callText(r.tool, r.args)}`;
    }
    return true;
  },
};

export const rollbackCompleteness: FuzzProperty = {
  name: 'rollback-completeness',
  owner: 'scenario',
  description:
    'issuing the recorded compensations of the reversible effects, newest first, returns the world to its pre-run state',
  check({ run, scenario }) {
    const r = rollBack(run.events, scenario);
    if (r.status !== 'differs') return true;
    const undo = r.compensations.map((c) => callText(c.tool, c.args)).join(', ') || '(none)';
    const more = r.differences.length > 8 ? [`... and ${r.differences.length - 8} more`] : [];
    return [
      `the world differs from before the run after the compensations ${undo}:`,
      ...r.differences.slice(0, 8).map((d) => `- ${d}`),
      ...more,
    ].join('\n');
  },
};

export const determinism: FuzzProperty = {
  name: 'determinism',
  owner: 'caller',
  description: 'the same plan with the same seed gives an identical record',
  async check(ctx) {
    const again = await ctx.rerun();
    const d = firstDifference(ctx.run.events, again.events);
    return d === undefined ? true : `two runs with the same seed differ: ${d}`;
  },
};

export const sealHolds: FuzzProperty = {
  name: 'seal',
  owner: 'caller',
  description: 'nothing escapes the sandbox: sandbox_escapes == 0',
  check({ run }) {
    const escapes: string[] = [];
    let end: RecordEvent | undefined;
    for (const e of run.events) {
      if (e.type === 'escape') escapes.push(`${e.method} ${e.url} (${e.reason})`);
      else if (e.type === 'run_end') end ??= e;
    }
    const counted = end?.type === 'run_end' ? Number(end.metrics.sandbox_escapes ?? 0) : 0;
    if (escapes.length === 0 && counted === 0) return true;
    return `${plural(Math.max(escapes.length, counted), 'sandbox escape')}: ${escapes.slice(0, 3).join('; ')}`;
  },
};

export const transportEquivalence: FuzzProperty = {
  name: 'transport-equivalence',
  owner: 'oneway',
  description: 'the msw and inprocess transports give identical records',
  async check(ctx) {
    const other: TransportName = ctx.transport === 'msw' ? 'inprocess' : 'msw';
    const again = await ctx.rerun({ transport: other });
    const d = firstDifference(ctx.run.events, again.events);
    return d === undefined ? true : `${ctx.transport} and ${other} records differ: ${d}`;
  },
};

/** Every built-in property, in the order they are checked. */
export const BUILTIN_PROPERTIES: readonly FuzzProperty[] = [
  scoringOracle,
  guardSoundness,
  rollbackCompleteness,
  determinism,
  sealHolds,
  transportEquivalence,
];

/** Checked when `--property` is not given: all but transport-equivalence, which runs every plan over HTTP as well. */
export const DEFAULT_PROPERTIES: readonly string[] = [
  'scoring-oracle',
  'guard-soundness',
  'rollback-completeness',
  'determinism',
  'seal',
];
