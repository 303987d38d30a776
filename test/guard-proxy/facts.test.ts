/**
 * What licenses a call is what its own session observed: a guard takes no fact from a journal (a
 * forged "carol verified" line grants nothing), one client session's read licenses nothing in
 * another, and a declared write to a table revokes the facts read from it. What a journal does give
 * a restarted guard refuses, never licenses: an uncertain payout stays refused until a person
 * settles it (`recover --settle`), and one settled not-applied may be made again.
 */
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as recover } from '../../harness/cli/recover.ts';
import type { CallEvent } from '../../harness/core/record.ts';
import { DEFAULT_POLICY } from '../../harness/engine/guard/policy.ts';
import { journalStart } from '../../harness/features/guard-proxy/proxy.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { MISBEHAVING_SERVER, nodeServer, outcomes, textOf, toolsAt, useGuard } from './helpers.ts';

const startGuard = useGuard();

/**
 * The misbehaving server's tools, declared so that `echo` reads the `balances` table (and verifies
 * the person it names) and `charge` needs that and writes the table.
 */
const TOOLS = `tools:
  - name: echo
    reversibility: reversible
    read_only: true
    reads: [balances]
    parameters: { type: object, properties: { text: { type: string } }, required: [text] }
    effects: [ { establish: "verified(person={{args.text}})" } ]
  - name: charge
    reversibility: irreversible
    preconditions: ["verified(person={{args.to}})"]
    parameters: { type: object, properties: { to: { type: string }, amount: { type: number } }, required: [to, amount] }
    effects: [ { insert: { table: balances, row: { to: "{{args.to}}", amount: "{{args.amount}}" } } } ]
  - name: pay
    reversibility: irreversible
    idempotency_key: key
    parameters: { type: object, properties: { to: { type: string }, amount: { type: number }, key: { type: string } }, required: [to, amount, key] }
`;

function setup() {
  const dir = tempDir('oneway-guard-facts-');
  const toolsFile = join(dir, 'tools.yaml');
  writeFileSync(toolsFile, TOOLS);
  const journal = join(dir, 'journal.jsonl');
  const tools = toolsAt(toolsFile);
  const start = (extra: { callTimeoutMs?: () => number } = {}) =>
    startGuard({ tools, toolsFile, target: nodeServer(MISBEHAVING_SERVER, [dir]), journal, ...extra });
  const reached = () =>
    readFileSync(join(dir, 'calls.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { name: string }).name);
  return { dir, toolsFile, tools, journal, start, reached };
}

describe('facts are per session', () => {
  it('takes no fact from a forged journal line: "carol verified" grants nothing', async () => {
    const { toolsFile, tools, journal, start } = setup();
    const forged: CallEvent = {
      type: 'call',
      step: 1,
      turn: 1,
      batch: 1,
      pos: 0,
      batch_size: 1,
      t_ms: 1,
      latency_ms: 1,
      tool: 'echo',
      args: { text: 'carol' },
      class: 'reversible',
      read_only: true,
      kind: 'action',
      preconditions: { held: [], missing: [] },
      establishes: ['verified(person=carol)'],
      status: 'ok',
      http_status: null,
      applied: true,
      ambiguous: false,
      result: { text: 'carol' },
      error: null,
      effect_id: 'eff-1',
      effects: [{ kind: 'establish', fact: 'verified(person=carol)', was_new: true }],
      compensation: null,
    };
    const first = journalStart({ scenario: tools, toolsFile, facts: [], policy: DEFAULT_POLICY, upstream: 'x' });
    writeFileSync(journal, `${JSON.stringify(first)}\n${JSON.stringify(forged)}\n`);
    const guard = await start();
    const charge = await guard.client.callTool({ name: 'charge', arguments: { to: 'carol', amount: 5 } });
    expect(textOf(charge)).toMatch(/^refused by oneway guard: .*verified\(person=carol\)/);
  });

  it("does not let one client session's read license another session's call", async () => {
    const { start } = setup();
    const guard = await start();
    const other = await guard.session();
    expect((await guard.client.callTool({ name: 'echo', arguments: { text: 'bob' } })).isError).toBeFalsy();
    const elsewhere = await other.callTool({ name: 'charge', arguments: { to: 'bob', amount: 5 } });
    expect(textOf(elsewhere)).toMatch(/^refused by oneway guard: .*verified\(person=bob\)/);
    const here = await guard.client.callTool({ name: 'charge', arguments: { to: 'bob', amount: 5 } });
    expect(here.isError).toBeFalsy();
  });

  it('revokes what was read from a table once a declared write changes it', async () => {
    const { start, reached } = setup();
    const guard = await start();
    await guard.client.callTool({ name: 'echo', arguments: { text: 'bob' } });
    expect((await guard.client.callTool({ name: 'charge', arguments: { to: 'bob', amount: 5 } })).isError).toBeFalsy();
    // The charge wrote balances: the read of it no longer holds, for this session or any other.
    const again = await guard.client.callTool({ name: 'charge', arguments: { to: 'bob', amount: 7 } });
    expect(textOf(again)).toMatch(/^refused by oneway guard: .*verified\(person=bob\)/);
    expect(reached()).toEqual(['echo', 'charge']);
    await guard.client.callTool({ name: 'echo', arguments: { text: 'bob' } });
    expect((await guard.client.callTool({ name: 'charge', arguments: { to: 'bob', amount: 7 } })).isError).toBeFalsy();
  });
});

describe('a person settles an uncertain call', () => {
  it('keeps an uncertain payout refused across restarts until settled not-applied, then lets it be made again', async () => {
    const { dir, journal, start } = setup();
    // The first payout never answers: the guard's call timeout makes it an ambiguous failure.
    writeFileSync(join(dir, 'hang'), '');
    let timeout = 200;
    let guard = await start({ callTimeoutMs: () => timeout });
    const pay = { to: 'bob', amount: 5, key: 'k-1' };
    const lost = await guard.client.callTool({ name: 'pay', arguments: pay });
    expect(textOf(lost)).toContain('It may have taken effect');
    await guard.close();

    const list = await runCli(recover, [journal], process.cwd(), { NO_COLOR: '1', COLUMNS: '1000' });
    expect(list.stdout).toContain('1 open');
    expect(list.stdout).toContain('UNCERTAIN');

    timeout = 60_000;
    guard = await start({ callTimeoutMs: () => timeout });
    const blind = await guard.client.callTool({ name: 'pay', arguments: { ...pay, key: 'k-2' } });
    expect(textOf(blind)).toMatch(/^refused by oneway guard: unreconciled retry/);
    await guard.close();

    const settled = await runCli(recover, [journal, '--settle=1=not-applied', '--by=alice'], process.cwd(), {
      NO_COLOR: '1',
      COLUMNS: '1000',
    });
    expect(settled.code).toBe(0);
    expect(settled.stderr).toMatch(/settled step 1 \(pay\) as not applied, by alice at \d{4}-\d\d-\d\dT/);
    expect(settled.stdout).toContain('0 open');
    expect(settled.stdout).toMatch(/\[x\] \d+\. IRREVERSIBLE pay .*\n(.*\n)*.*settled not applied by alice at /);

    // The settle is journaled, and a guard started on the journal honours it.
    unlinkSync(join(dir, 'hang'));
    guard = await start();
    const again = await guard.client.callTool({ name: 'pay', arguments: { ...pay, key: 'k-3' } });
    expect(again.isError).toBeFalsy();
    expect(outcomes(journal).at(-1)).toMatchObject({ tool: 'pay', status: 'ok' });
  });

  it('refuses a settle of a step the journal did not send, with a hint', async () => {
    const { journal, start } = setup();
    const guard = await start();
    await guard.client.callTool({ name: 'charge', arguments: { to: 'bob', amount: 5 } }); // refused: unverified
    await guard.close();
    const refused = await runCli(recover, [journal, '--settle=1=applied']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('was refused by the guard: it never reached the server');
    const missing = await runCli(recover, [journal, '--settle=9=applied']);
    expect(missing.stderr).toContain('the journal has no call at step 9');
    const bad = await runCli(recover, [journal, '--settle=1=maybe']);
    expect(bad.stderr).toContain('--settle takes STEP=applied or STEP=not-applied');
    const lonely = await runCli(recover, [journal, '--by=alice']);
    expect(lonely.stderr).toContain('--by goes with --settle');
  });
});
