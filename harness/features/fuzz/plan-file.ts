/**
 * Counterexamples as plan files: a run turned back into a plan, the plan
 * written as YAML that `loadPlanFile` reads, and the command that replays it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Document } from 'yaml';
import type { CallEvent, RecordEvent } from '../../core/record.ts';
import type { PlanItem, Scenario } from '../../core/scenario.ts';
import { renderValue } from '../../core/templates/render.ts';
import { worldCandidates } from './values.ts';
import { commandLine } from '../../util/command-line.ts';

/** Scalar leaves of a value with their dotted paths. */
function leaves(v: unknown, path: string[] = [], out: [string, unknown][] = []): [string, unknown][] {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) leaves(x, [...path, k], out);
  } else if ((typeof v === 'string' || typeof v === 'number') && path.length > 0) out.push([path.join('.'), v]);
  return out;
}

/**
 * The decisions of a recorded run as a plan. A value the run only learned from
 * an earlier reply (an id) becomes `{{results.TOOL.path}}`, so the plan still
 * means the same call when earlier items are removed or ids change.
 *
 * @example
 * planFromRun(run.events, scenario) // [{ create_invoice: {...} }, { send_invoice_email: { invoice_id: '{{results.create_invoice.id}}', ... } }]
 */
export function planFromRun(events: readonly RecordEvent[], scenario: Scenario): PlanItem[] {
  const known = new Set(worldCandidates(scenario).map((c) => JSON.stringify(c.raw)));
  for (const v of Object.values(
    renderValue(scenario.inputs, { inputs: scenario.inputs, deployment: scenario.deployment }) as Record<
      string,
      unknown
    >,
  ))
    known.add(JSON.stringify(v));
  const calls = events.filter((e): e is CallEvent => e.type === 'call');
  const decisions = new Map(events.flatMap((e) => (e.type === 'turn' ? [[e.turn, e.decision] as const] : [])));
  const latest = new Map<string, unknown>();
  const plan: PlanItem[] = [];
  const template = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(template);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, template(x)]));
    if ((typeof v !== 'string' && typeof v !== 'number') || known.has(JSON.stringify(v))) return v;
    for (const [tool, result] of [...latest].reverse()) {
      const hit = leaves(result).find(([, x]) => x === v);
      if (hit) return `{{results.${tool}.${hit[0]}}}`;
    }
    return v;
  };
  for (const batch of [...new Set(calls.map((c) => c.batch))]) {
    const inBatch = calls.filter((c) => c.batch === batch);
    const items = inBatch.map((c) => ({ [c.tool]: template(c.args) as Record<string, unknown> }));
    plan.push(
      decisions.get(inBatch[0]?.turn ?? -1) === 'batch' ? ({ parallel: items } as PlanItem) : (items[0] as PlanItem),
    );
    // Replies of a batch are seen by later items only; `{{results.T}}` is T's latest successful reply.
    for (const c of inBatch) {
      if (c.status !== 'ok') continue;
      latest.delete(c.tool);
      latest.set(c.tool, c.result);
    }
  }
  return plan;
}

/** A plan as YAML, with comment lines on top. */
export function planYaml(plan: readonly PlanItem[], comment: readonly string[] = []): string {
  const doc = new Document(plan);
  if (comment.length > 0) doc.commentBefore = comment.map((l) => ` ${l}`).join('\n');
  return doc.toString({ lineWidth: 0 });
}

export function writePlanFile(path: string, plan: readonly PlanItem[], comment: readonly string[] = []): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, planYaml(plan, comment));
}

/**
 * The command that replays a plan file with `oneway eval`, as the user types it where they are
 * (`npx oneway eval`, or `npm run eval --` inside the oneway repository: util/command-line.ts).
 *
 * @example
 * replayCommand({ plan: 'reports/fuzz/x.yaml', scenario: 'invoice-and-notify', seed: 12 })
 * // npx oneway eval --planner=scripted --plan=reports/fuzz/x.yaml --scenario=invoice-and-notify --seed=12
 */
export function replayCommand(o: {
  plan?: string;
  planner?: string;
  scenario: string;
  seed: number;
  guard?: boolean;
  transport?: string;
  out?: string;
}): string {
  const args = [
    `--planner=${o.planner ?? 'scripted'}`,
    ...(o.plan ? [`--plan=${o.plan}`] : []),
    `--scenario=${o.scenario}`,
    `--seed=${o.seed}`,
    ...(o.guard ? ['--guard'] : []),
    ...(o.transport ? [`--transport=${o.transport}`] : []),
    ...(o.out ? [`--out=${o.out}`] : []),
  ];
  return commandLine('eval', args);
}
