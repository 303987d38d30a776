/**
 * What `npm run fuzz` says about a failure and leaves behind: the plan file
 * under --out (with the failure and how to replay it in comments), and the
 * lines printed, each command ready to paste.
 */
import { join } from 'node:path';
import type { ChalkInstance } from 'chalk';
import { safeName } from '../../engine/runner/evaluate.ts';
import type { FuzzFailure } from './fuzz.ts';
import { failureCalls } from './fuzz.ts';
import { replayCommand, writePlanFile } from './plan-file.ts';
import { terminalText } from '../../util/terminal-text.ts';
import { commandLine } from '../../util/command-line.ts';
import { plural } from '../../util/plural.ts';

/** How the fuzz run was invoked, as far as replaying a failure needs it. */
export interface ReplayContext {
  outDir: string;
  /** `--scenario` value that selects this failure's scenario (its id when bundled, else its path). */
  scenarioRef: string;
  /** `--property` value that selects the property again (a module path for a user property). */
  propertyRef: string;
  /** `--planner` value, in planner mode. */
  planner?: string;
  guard: boolean;
  transport: string;
  maxItems: number;
  /** False with --no-shrink: the plan is the one that first failed (default: true). */
  shrink?: boolean;
  /** A path as the user would type it. */
  shown(path: string): string;
}

/** The `oneway fuzz` command that replays fast-check's counterexample. */
function fuzzReplayCommand(f: FuzzFailure, r: ReplayContext): string | undefined {
  if (!f.fastCheck) return undefined;
  const args = [
    `--scenario=${r.scenarioRef}`,
    `--property=${r.propertyRef}`,
    `--seed=${f.fastCheck.seed}`,
    `--path=${f.fastCheck.path}`,
    ...(r.guard ? ['--guard'] : []),
    ...(r.transport !== 'inprocess' ? [`--transport=${r.transport}`] : []),
    ...(r.maxItems !== 6 ? [`--max-items=${r.maxItems}`] : []),
    ...(r.shrink === false ? ['--no-shrink'] : []),
  ];
  return commandLine('fuzz', args);
}

/** The party at fault as a reader names it: "oneway (a bug)", "the scenario", "the planner NAME". */
function faultName(f: FuzzFailure): string {
  if (f.fault.party === 'oneway') return 'oneway (a bug)';
  if (f.fault.party === 'scenario') return 'the scenario';
  return f.planner ? `the planner ${f.planner}` : 'the planner';
}

/**
 * Writes a failure's plan file (when a plan reproduces it) and returns what to print, and the file.
 *
 * @example
 * const { lines, file } = reportFailure(failure, ctx, chalk);
 */
export function reportFailure(
  f: FuzzFailure,
  r: ReplayContext,
  c: ChalkInstance,
): { lines: string[]; file: string | null } {
  const file = join(r.outDir, f.scenario, `${safeName(f.property)}.yaml`);
  const replay = f.plan
    ? replayCommand({ plan: r.shown(file), scenario: r.scenarioRef, seed: f.seed, guard: r.guard })
    : undefined;
  const plannerRun = f.planner
    ? replayCommand({ planner: r.planner ?? f.planner, scenario: r.scenarioRef, seed: f.seed, guard: r.guard })
    : undefined;
  const fcReplay = fuzzReplayCommand(f, r);
  // Property names, planner names and messages are user and planner text: escaped for the console.
  const t = terminalText;
  const lines = [
    `${c.red('✗')} ${c.bold(t(f.scenario))}: ${c.bold(t(f.property))}${f.planner ? ` (planner ${t(f.planner)}, seed ${f.seed})` : ''}`,
  ];
  lines.push(...f.message.split('\n').map((l) => `    ${t(l)}`));
  lines.push(`    ${c.bold(`at fault: ${t(faultName(f))}`)}: ${t(f.fault.why)}`, `    next:     ${t(f.fault.next)}`);
  if (f.plan && replay) {
    writePlanFile(file, f.plan, [
      `oneway fuzz counterexample: ${f.property} fails on ${f.scenario}`,
      ...f.message.split('\n').map((l) => `  ${l}`),
      `at fault: ${faultName(f)}: ${f.fault.why}`,
      `next: ${f.fault.next}`,
      `replay: ${replay}`,
      ...(f.fastCheck ? [`fast-check: seed ${f.fastCheck.seed}, path ${f.fastCheck.path} (${fcReplay})`] : []),
      ...(plannerRun ? [`found by: ${plannerRun}`] : []),
    ]);
    const n = failureCalls(f);
    lines.push(
      `    ${r.shrink === false ? 'plan, not shrunk' : 'minimal plan'} (${n} call${n === 1 ? '' : 's'}): ${t(r.shown(file))}`,
      `    replay:     ${t(replay)}`,
    );
  } else {
    lines.push(`    ${c.dim('no plan reproduces it without the planner (it is not a matter of the calls made)')}`);
  }
  if (plannerRun) lines.push(`    planner run: ${t(plannerRun)}`);
  if (f.fastCheck && fcReplay) {
    lines.push(
      `    fast-check: seed ${f.fastCheck.seed}, path ${f.fastCheck.path} after ${plural(f.fastCheck.numRuns, 'plan')}, ${plural(f.fastCheck.numShrinks, 'shrink')}`,
      `                ${t(fcReplay)}`,
    );
  }
  return { lines, file: f.plan ? file : null };
}
