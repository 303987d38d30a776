/**
 * A planner file's views cross to its sealed process as deltas (runner/view-delta.mjs): the
 * harness's encoder sends what the process does not hold yet, the process's decoder rebuilds the
 * view. Over any sequence of runs (scenarios shared between them, restarts that add keys and send
 * the history again, turns that add entries), the view rebuilt after the JSON round trip of the
 * channel is the view the runner built: the same keys in the same order, the same values,
 * deep-frozen where the runner's is. A decision within a run sends neither the keys nor the parts the process holds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HistoryEntry, PlannerView } from '../../harness/core/planner.ts';
import { deepFreeze, viewDecoder, viewEncoder, type ViewDelta } from '../../harness/engine/runner/view-delta.mjs';
import { itProp } from '../helpers/prop.ts';

/** The part of a view that is the same in every run of a scenario, deep-frozen once (as run.ts's frozenView). */
function fixedPart(id: string, tools: number) {
  return deepFreeze({
    scenario: { id, title: `title of ${id}`, task: 'do the thing' },
    inputs: { account: `acct-${id}`, amount: 42.5 },
    deployment: {},
    initial_facts: [`fact(${id})`],
    goal: [`goal(${id})`],
    forbidden: [],
    tools: Array.from({ length: tools }, (_, i) => ({ name: `tool_${i}`, parameters: { type: 'object' } })),
    max_steps: 10,
    max_turns: 50,
  });
}

const entry = (turn: number, tool: string, n: number): HistoryEntry =>
  deepFreeze({
    turn,
    batch: turn - 1,
    observations: [{ step: turn, tool, args: { n }, status: 'ok', http_status: 200, result: { n, list: [n, n + 1] } }],
  }) as HistoryEntry;

/** The view as run.ts builds it: the fixed part, then the history, the turn and the steps used (and what a restart adds). */
function viewOf(
  fixed: ReturnType<typeof fixedPart>,
  history: readonly HistoryEntry[],
  turn: number,
  restarted: number,
): PlannerView {
  const view = Object.assign({}, fixed, {
    history: history.slice(),
    turn,
    steps_used: history.length,
  }) as unknown as PlannerView;
  if (restarted > 0) {
    view.restarts = restarted;
    view.pending = [{ tool: 'tool_0', args: { n: turn } }];
  }
  return view;
}

/** What a run does between two decisions. */
type Step = { kind: 'turn'; n: number } | { kind: 'restart'; keep: number } | { kind: 'run'; scenario: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('turn' as const), n: fc.nat(1000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), keep: fc.nat(5) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('run' as const), scenario: fc.nat(2) }) },
);

/** Every object in `v` is frozen. */
function expectDeepFrozen(v: unknown): void {
  if (v === null || typeof v !== 'object') return;
  expect(Object.isFrozen(v)).toBe(true);
  for (const x of Object.values(v)) expectDeepFrozen(x);
}

/** The channel: one JSON line each way. */
const overChannel = (d: ViewDelta): ViewDelta => JSON.parse(JSON.stringify(d)) as ViewDelta;

describe('view deltas to a sealed planner process', () => {
  itProp(
    'the view rebuilt in the process is the view the runner built, frozen where it is, after any runs, restarts and turns',
    [fc.array(step, { minLength: 1, maxLength: 40 })],
    (steps) => {
      const fixed = [fixedPart('a', 2), fixedPart('b', 3), fixedPart('c', 1)];
      const encode = viewEncoder();
      const process = viewDecoder();
      let scenario = fixed[0] as ReturnType<typeof fixedPart>;
      let history: HistoryEntry[] = [];
      let sent: readonly unknown[] = [];
      let restarted = 0;
      let turn = 1;
      for (const s of steps) {
        if (s.kind === 'run') {
          // A new run: a new planner (its history sent from the start), on the same process.
          scenario = fixed[s.scenario] as ReturnType<typeof fixedPart>;
          history = [];
          restarted = 0;
          turn = 1;
          sent = [];
          process.newRun();
        } else if (s.kind === 'restart') {
          // A restart: a fresh planner instance, given the history up to its checkpoint.
          history = history.slice(0, Math.min(s.keep, history.length));
          restarted++;
          sent = [];
          process.newRun();
        } else history = [...history, entry(turn, `tool_${s.n % 2}`, s.n)];
        turn++;
        const view = viewOf(scenario, history, turn, restarted);
        const got = process.apply(overChannel(encode(view, sent)));
        sent = view.history;
        expect(Object.keys(got)).toEqual(Object.keys(view));
        expect(got).toStrictEqual(JSON.parse(JSON.stringify(view)));
        // Frozen where the runner's view is: its fixed parts and its history's entries.
        for (const [key, value] of Object.entries(view))
          if (value !== null && typeof value === 'object' && Object.isFrozen(value))
            expectDeepFrozen(got[key as keyof PlannerView]);
        for (const e of got.history) expectDeepFrozen(e);
      }
    },
    { numRuns: 100 },
  );

  it('a decision within a run sends only what changed: no keys, no numbers, no part the process holds', () => {
    const fixed = fixedPart('a', 2);
    const encode = viewEncoder();
    const first = encode(viewOf(fixed, [], 1, 0), []);
    expect(first.keys).toEqual(Object.keys(viewOf(fixed, [], 1, 0)));
    expect(first.define?.map(([, v]) => v)).toEqual(
      ['scenario', 'inputs', 'deployment', 'initial_facts', 'goal', 'forbidden', 'tools'].map(
        (k) => fixed[k as keyof typeof fixed],
      ),
    );
    const e1 = entry(1, 'tool_0', 1);
    const second = encode(viewOf(fixed, [e1], 2, 0), []);
    expect(second).toEqual({ plain: { max_steps: 10, max_turns: 50, turn: 2, steps_used: 1 }, keep: 0, add: [e1] });
    const e2 = entry(2, 'tool_1', 2);
    expect(encode(viewOf(fixed, [e1, e2], 3, 0), [e1])).toMatchObject({ keep: 1, add: [e2] });
    // A restart adds keys (restarts, pending): they go again, and the parts by the numbers they have.
    const restarted = encode(viewOf(fixed, [e1], 4, 1), []);
    expect(restarted.keys).toContain('pending');
    expect(restarted.define).toBeUndefined();
    // Another scenario's parts are new to the process: defined, with their numbers.
    const other = encode(viewOf(fixedPart('b', 1), [], 1, 0), []);
    expect(other.define).toHaveLength(7);
    expect(Object.values(other.refs ?? {})).toEqual(other.define?.map(([id]) => id));
  });

  it('a process that missed a delta does not rebuild the view (what the harness must keep it from)', () => {
    const fixed = fixedPart('a', 2);
    const encode = viewEncoder();
    const process = viewDecoder();
    encode(viewOf(fixed, [], 1, 0), []); // sent, never applied
    const view = viewOf(fixed, [entry(1, 'tool_0', 1)], 2, 0);
    expect(process.apply(overChannel(encode(view, [])))).not.toStrictEqual(JSON.parse(JSON.stringify(view)));
  });
});
