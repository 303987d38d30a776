/**
 * The checklist of a guard's journal, which has no ground truth: every executed irreversible or
 * compensable call is on it, declared effects or not; an applied or uncertain one is open until a
 * person settles it; the attempts the guard refused are listed, ticked; and recover never says that
 * nothing needs recovering while such a call applied or is uncertain.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CallEvent, IntentEvent, RecordEvent, SettleEvent } from '../../harness/core/record.ts';
import { DEFAULT_POLICY } from '../../harness/engine/guard/policy.ts';
import { parseRecordText } from '../../harness/engine/record/reader.ts';
import { journalStart } from '../../harness/features/guard-proxy/proxy.ts';
import { loadGuardTools } from '../../harness/features/guard-proxy/tools-file.ts';
import { buildChecklist } from '../../harness/features/recover/checklist.ts';
import { renderText } from '../../harness/features/recover/render.ts';
import { makeChalk } from '../../harness/features/report/color.ts';
import { tempDir } from '../helpers/cli.ts';

/** A filesystem-like server: write_file overwrites (irreversible, no declared effect, idempotent as imported). */
const TOOLS = `tools:
  - name: write_file
    reversibility: irreversible
    idempotent: true
    parameters: { type: object, properties: { path: { type: string }, content: { type: string } }, required: [path, content] }
  - name: pay
    reversibility: irreversible
    parameters: { type: object, properties: { to: { type: string }, amount: { type: number } }, required: [to, amount] }
  - name: pay_status
    reversibility: reversible
    read_only: true
    reconciles: [pay]
    parameters: { type: object, properties: { to: { type: string } }, required: [to] }
`;

function tools() {
  const file = join(tempDir('oneway-journal-checklist-'), 'tools.yaml');
  writeFileSync(file, TOOLS);
  const r = loadGuardTools(file);
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join('; '));
  return { file, scenario: r.value.scenario };
}

const head = (step: number, tool: string, args: Record<string, unknown>, cls: CallEvent['class']) => ({
  step,
  turn: step,
  batch: step,
  pos: 0,
  batch_size: 1,
  t_ms: step,
  tool,
  args,
  class: cls,
  read_only: tool === 'pay_status',
  kind: 'action' as const,
  preconditions: { held: [], missing: [] },
  establishes: [],
  session: 's1',
});

const outcome = (h: ReturnType<typeof head>, over: Partial<CallEvent> = {}): CallEvent => ({
  type: 'call',
  ...h,
  latency_ms: 1,
  status: 'ok',
  http_status: null,
  applied: true,
  ambiguous: false,
  result: {},
  error: null,
  effect_id: null,
  effects: [],
  compensation: null,
  ...over,
});

function journalOf(events: RecordEvent[]) {
  const { file, scenario } = tools();
  const start = journalStart({ scenario, toolsFile: file, facts: [], policy: DEFAULT_POLICY, upstream: 'server' });
  const r = parseRecordText(`${[start, ...events].map((e) => JSON.stringify(e)).join('\n')}\n`, 'journal.jsonl');
  if (!r.ok) throw new Error('not a journal');
  const checklist = buildChecklist(r.value, scenario);
  return { checklist, text: renderText(checklist, undefined, makeChalk(false)) };
}

describe("a journal's checklist", () => {
  it('lists an irreversible write that declares no effects, open, never "no effects to recover"', () => {
    const w = head(1, 'write_file', { path: '/srv/a.txt', content: 'beta' }, 'irreversible');
    const { checklist, text } = journalOf([{ type: 'intent', ...w } as IntentEvent, outcome(w)]);
    expect(checklist.items.map((i) => [i.step, i.tool, i.action, i.open])).toEqual([
      [1, 'write_file', 'respond', true],
    ]);
    expect(text).not.toContain('no effects to recover');
    expect(text).toContain('1 open');
  });

  it('counts an uncertain call open: an intent with no outcome, and an ambiguous failure', () => {
    const a = head(1, 'pay', { to: 'bob', amount: 5 }, 'irreversible');
    const b = head(2, 'pay', { to: 'ann', amount: 7 }, 'irreversible');
    const { checklist, text } = journalOf([
      { type: 'intent', ...a } as IntentEvent,
      { type: 'intent', ...b } as IntentEvent,
      outcome(b, { status: 'fault', applied: false, ambiguous: true, error: 'timed out' }),
    ]);
    expect(checklist.items.map((i) => [i.step, i.uncertain, i.open])).toEqual([
      [2, true, true],
      [1, true, true],
    ]);
    expect(checklist.counts.open).toBe(2);
    expect(text).toContain('2 open');
  });

  it('keeps open a failed call a reconciler said applied, as one to respond to', () => {
    const a = head(1, 'pay', { to: 'bob', amount: 5 }, 'irreversible');
    const s = head(2, 'pay_status', { to: 'bob' }, 'reversible');
    const { checklist } = journalOf([
      outcome(a, { status: 'fault', applied: false, ambiguous: true, error: 'timed out' }),
      outcome(s, {
        reconciled: { tool: 'pay', step: 1, applied: true, calls: [{ tool: 'pay', step: 1, applied: true }] },
      }),
    ]);
    expect(checklist.items.map((i) => [i.step, i.action, i.uncertain, i.open])).toEqual([[1, 'respond', false, true]]);
  });

  it('lists the attempts the guard refused, ticked, with why', () => {
    const r = head(1, 'write_file', { path: '/srv/a.txt', content: 'x' }, 'irreversible');
    const { checklist, text } = journalOf([
      outcome(r, {
        status: 'blocked',
        applied: false,
        result: null,
        error: 'missing preconditions',
        blocked_reason: 'missing preconditions: file_read(path=/srv/a.txt)',
      }),
    ]);
    expect(checklist.items).toHaveLength(1);
    expect(checklist.items[0]).toMatchObject({
      action: 'none',
      open: false,
      refused: expect.stringContaining('missing'),
    });
    expect(checklist.counts.refused).toBe(1);
    expect(text).toContain('[x] 1. IRREVERSIBLE write_file');
    expect(text).toContain('refused by the guard (missing preconditions: file_read(path=/srv/a.txt))');
    expect(text).toContain('1 refused by the guard (never sent, nothing to do)');
  });

  it('closes an item a person settled, and says who and when', () => {
    const a = head(1, 'pay', { to: 'bob', amount: 5 }, 'irreversible');
    const settle: SettleEvent = {
      type: 'settle',
      step: 2,
      batch: 2,
      settles: 1,
      tool: 'pay',
      applied: false,
      by: 'alice',
      at: '2026-01-02T03:04:05.000Z',
    };
    const { checklist, text } = journalOf([{ type: 'intent', ...a } as IntentEvent, settle]);
    expect(checklist.items[0]).toMatchObject({ step: 1, uncertain: false, open: false, action: 'none' });
    expect(checklist.items[0]?.settled).toEqual({
      step: 2,
      applied: false,
      by: 'alice',
      at: '2026-01-02T03:04:05.000Z',
    });
    expect(text).toContain('settled not applied by alice at 2026-01-02T03:04:05.000Z');
    expect(checklist.counts.open).toBe(0);
  });

  it('does not call a repeat after a reconciler answered applied=false "may exist twice"', () => {
    const a = head(1, 'pay', { to: 'bob', amount: 5 }, 'irreversible');
    const s = head(2, 'pay_status', { to: 'bob' }, 'reversible');
    const again = head(3, 'pay', { to: 'bob', amount: 5 }, 'irreversible');
    const { checklist, text } = journalOf([
      outcome(a, { status: 'fault', applied: false, ambiguous: true, error: 'timed out' }),
      outcome(s, {
        reconciled: { tool: 'pay', step: 1, applied: false, calls: [{ tool: 'pay', step: 1, applied: false }] },
      }),
      outcome(again),
    ]);
    expect(checklist.items.find((i) => i.step === 3)?.repeats).toBeUndefined();
    expect(checklist.items.find((i) => i.step === 1)).toMatchObject({ action: 'none', uncertain: false, open: false });
    expect(text).not.toContain('may exist twice');
    expect(text).not.toContain('reconcile first');
  });
});
