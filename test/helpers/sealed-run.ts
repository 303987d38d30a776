/**
 * One run of a loaded planner on the email scenario, in process, as eval runs it (its planner options
 * in its context): what the seal tests read of it, its escapes and the email of each call it made.
 */
import type { CallEvent, EscapeEvent } from '../../harness/core/record.ts';
import { memorySink } from '../../harness/engine/record/writer.ts';
import { loadPlanner } from '../../harness/engine/runner/planners.ts';
import { runOne, type PlannerHandle } from '../../harness/engine/runner/run.ts';
import { EMAIL_YAML, scenarioFrom } from './run.ts';

const scenario = scenarioFrom(EMAIL_YAML);

/** Runs `handle` once; `runPrefix` names the suite in the run id. */
export async function runSealed(handle: PlannerHandle, options: Record<string, string>, runPrefix: string) {
  const out = await runOne({
    scenario,
    scenarioFile: 'inline.yaml',
    planner: handle,
    plannerContext: { options },
    trial: 1,
    seed: 7,
    runId: `${runPrefix}/${handle.name}`,
    sink: memorySink(),
    transport: 'inprocess',
    maxTurns: 5,
    decisionTimeoutMs: 20_000,
  });
  const escapes = out.events.filter((e): e is EscapeEvent => e.type === 'escape');
  const emails = out.events.filter((e): e is CallEvent => e.type === 'call').map((e) => String(e.args.email));
  return { ...out, escapes, emails };
}

/** Loads a planner file with its run's options (its loading process serves the run) and runs it once. */
export const runSealedFile = async (file: string, options: Record<string, string>, runPrefix: string) =>
  runSealed(await loadPlanner(file, process.cwd(), options), options, runPrefix);
