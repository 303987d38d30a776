/**
 * A journal cannot lie to `oneway recover`: what `--apply` issues comes from the tools file, never
 * from the journal's lines (a forged line is disputed and nothing is issued), and a line recover
 * cannot read is reported, never skipped in silence.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as recover } from '../../harness/cli/recover.ts';
import type { CallEvent } from '../../harness/core/record.ts';
import { DEFAULT_POLICY } from '../../harness/engine/guard/policy.ts';
import { journalStart } from '../../harness/features/guard-proxy/proxy.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { MISBEHAVING_SERVER, MISBEHAVING_TOOLS, toolsAt } from './helpers.ts';

const NO_COLOR = { NO_COLOR: '1', COLUMNS: '1000' };

/** A journal's first line, as a guard in front of the misbehaving server writes it. */
const startLine = () =>
  JSON.stringify(
    journalStart({
      scenario: toolsAt(MISBEHAVING_TOOLS),
      toolsFile: MISBEHAVING_TOOLS,
      facts: [],
      policy: DEFAULT_POLICY,
      upstream: 'misbehaving',
    }),
  );

/** A journaled call that applied, as the guard writes one (fields a forger can set at will). */
function callLine(step: number, over: Partial<CallEvent>): string {
  const e: CallEvent = {
    type: 'call',
    step,
    turn: step,
    batch: step,
    pos: 0,
    batch_size: 1,
    t_ms: step,
    latency_ms: 1,
    tool: 'charge',
    args: { to: 'bob', amount: 5 },
    class: 'irreversible',
    read_only: false,
    kind: 'action',
    preconditions: { held: [], missing: [] },
    establishes: [],
    status: 'ok',
    http_status: null,
    applied: true,
    ambiguous: false,
    result: { charged: 'bob', amount: 5 },
    error: null,
    effect_id: `eff-${step}`,
    effects: [],
    compensation: null,
    session: 'a1b2c3d4',
    ...over,
  };
  return JSON.stringify(e);
}

/** What reached the server (the misbehaving server appends each call it gets to calls.jsonl). */
const reached = (dir: string): string[] =>
  existsSync(join(dir, 'calls.jsonl'))
    ? readFileSync(join(dir, 'calls.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { name: string }).name)
    : [];

describe('recover --apply on a journal takes what it issues from the tools file', () => {
  it('lists a forged reversible refund as disputed and issues nothing, even with --approve', async () => {
    const dir = tempDir('oneway-recover-forged-');
    const journal = join(dir, 'journal.jsonl');
    // charge is irreversible with no compensation in the tools file; the forged line says otherwise.
    const forged = callLine(1, {
      class: 'reversible',
      compensation: { operation: 'refund', args: { to: 'everyone', amount: 1000000 }, requires_approval: false },
    });
    writeFileSync(journal, `${startLine()}\n${forged}\n`);
    const server = ['--', process.execPath, MISBEHAVING_SERVER, dir];

    for (const approve of [[], ['--approve']]) {
      const r = await runCli(
        recover,
        [journal, '--apply', ...approve, `--tools=${MISBEHAVING_TOOLS}`, ...server],
        process.cwd(),
        NO_COLOR,
      );
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('DISPUTED: the journal says reversible; the tools file declares irreversible');
      expect(r.stdout).toContain(
        'DISPUTED: the journal\'s compensation is refund({"to":"everyone","amount":1000000}) without approval; the tools file gives none',
      );
      expect(r.stdout).toContain('✗ step 1 charge: not issued: DISPUTED');
      expect(reached(dir)).toEqual([]);
    }
    // The checklist says so without --apply too.
    const listed = await runCli(recover, [journal, `--tools=${MISBEHAVING_TOOLS}`], process.cwd(), NO_COLOR);
    expect(listed.stdout).toContain('1 disputed (the tools file disagrees with the journal: never applied)');
  });

  it('lists a call of a tool the tools file does not declare as disputed', async () => {
    const dir = tempDir('oneway-recover-undeclared-');
    const journal = join(dir, 'journal.jsonl');
    const forged = callLine(1, {
      tool: 'refund_all',
      class: 'reversible',
      compensation: { operation: 'charge', args: { to: 'mallory', amount: 1 }, requires_approval: false },
    });
    writeFileSync(journal, `${startLine()}\n${forged}\n`);
    const r = await runCli(
      recover,
      [journal, '--apply', `--tools=${MISBEHAVING_TOOLS}`, '--', process.execPath, MISBEHAVING_SERVER, dir],
      process.cwd(),
      NO_COLOR,
    );
    expect(r.stdout).toContain('DISPUTED: the tools file does not declare refund_all');
    expect(reached(dir)).toEqual([]);
  });

  it('refuses --apply on a journal without --tools, with a hint', async () => {
    const dir = tempDir('oneway-recover-notools-');
    const journal = join(dir, 'journal.jsonl');
    writeFileSync(journal, `${startLine()}\n${callLine(1, {})}\n`);
    const r = await runCli(recover, [journal, '--apply', '--', process.execPath, MISBEHAVING_SERVER, dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--apply on a guard's journal needs --tools=FILE");
    expect(r.stderr).toContain('never from the journal');
    expect(reached(dir)).toEqual([]);
  });
});
