/**
 * Runs that ended in an error, said on the console: a crashing planner's message (its stack with
 * `--verbose`), so nobody has to dig it out of results.json. One line per planner and message,
 * with how many runs it ended and the record of the first.
 */
import type { ChalkInstance } from 'chalk';
import type { PlannerHandle } from '../engine/runner/run.ts';
import type { RunResult } from '../engine/results/types.ts';
import { redact } from '../util/secrets.ts';
import { terminalText } from '../util/terminal-text.ts';

/** The end reasons that are errors (the planner's, the agent's or the harness's), not outcomes. */
const ERRORS = new Set(['planner_error', 'invalid_decision', 'decision_timeout', 'harness_error']);

/** Stack traces of planner errors, by run: filled by `capturingStacks` as planners throw. */
export type Stacks = Map<string, string>;
const runKey = (planner: string, scenario: string, trial: number) => `${planner}\u0000${scenario}\u0000${trial}`;

/**
 * A planner handle whose planners remember the stack of what their `next` throws (in this thread,
 * or sent over from a planner's own thread), keyed by run. Decisions are untouched.
 */
export function capturingStacks(handle: PlannerHandle, stacks: Stacks): PlannerHandle {
  return {
    ...handle,
    create(ctx) {
      const planner = handle.create(ctx);
      const key = runKey(handle.name, ctx.scenario, ctx.trial);
      const keep = (e: unknown) => {
        if (e instanceof Error && e.stack) stacks.set(key, e.stack);
      };
      return new Proxy(planner, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (prop === 'next' && typeof value === 'function') {
            return (view: Parameters<typeof planner.next>[0]) => {
              try {
                const out = (value as typeof planner.next).call(target, view);
                return out instanceof Promise ? out.catch((e: unknown) => (keep(e), Promise.reject(e))) : out;
              } catch (e) {
                keep(e);
                throw e;
              }
            };
          }
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
  };
}

/** Console lines for the runs that ended in an error; empty when none did. Secrets redacted, text escaped for the console. */
export function runErrorLines(
  runs: readonly RunResult[],
  c: ChalkInstance,
  where: string,
  opts: { verbose?: boolean; stacks?: Stacks } = {},
): string[] {
  const groups = new Map<string, RunResult[]>();
  for (const r of runs) {
    if (!ERRORS.has(r.end_reason) || !r.error) continue;
    const key = `${r.planner}\u0000${r.end_reason}\u0000${r.error}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const lines: string[] = [];
  for (const group of groups.values()) {
    const first = group[0] as RunResult;
    const n =
      group.length === 1
        ? `${first.scenario} (trial ${first.trial})`
        : `${group.length} runs, first ${first.scenario} (trial ${first.trial})`;
    lines.push(
      `${c.red('✗')} ${terminalText(redact(`${first.planner}: ${first.end_reason} in ${n}: ${first.error}`))}`,
    );
    lines.push(c.dim(`    record: ${terminalText(`${where}/${first.record}`)}`));
    const stack = opts.stacks?.get(runKey(first.planner, first.scenario, first.trial));
    if (opts.verbose && stack)
      lines.push(
        ...redact(stack)
          .split('\n')
          .map((l) => c.dim(`    ${terminalText(l)}`)),
      );
  }
  if (lines.length && !opts.verbose && runs.some((r) => r.end_reason === 'planner_error'))
    lines.push(c.dim('    (--verbose prints the stack trace of a planner error)'));
  return lines;
}
