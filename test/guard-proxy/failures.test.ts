/**
 * What a server can do wrong, and the guard survives: a crash mid-call, a malformed reply, a call
 * that never returns. Each is an error to the client and an entry in the journal; an ambiguous one
 * blocks a blind repeat until a reconciling call answered; a declared idempotency key the client
 * left out is filled with a key derived from the call.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.ts';
import {
  MISBEHAVING_SERVER,
  MISBEHAVING_TOOLS,
  nodeServer,
  outcomes,
  textOf,
  toolsAt,
  useGuard,
  whenFile,
} from './helpers.ts';

const startGuard = useGuard();

/**
 * The guard in front of the misbehaving server. `hangTimeout`: while STATE_DIR/hang exists (the
 * server never answers `charge` or `pay`), a call times out after 1 ms, and any other call has the
 * default 60 s: the timeout of a call that never returns is certain whatever its length, and no
 * answered call can time out on a busy machine.
 */
async function misbehaving(opts: { hangTimeout?: boolean; approveCmd?: string; toolsFile?: string } = {}) {
  const dir = tempDir('oneway-guard-fail-');
  const journal = join(dir, 'journal.jsonl');
  const guard = await startGuard({
    tools: toolsAt(opts.toolsFile ?? MISBEHAVING_TOOLS),
    target: nodeServer(MISBEHAVING_SERVER, [dir]),
    journal,
    ...(opts.hangTimeout ? { callTimeoutMs: () => (existsSync(join(dir, 'hang')) ? 1 : 60_000) } : {}),
    ...(opts.approveCmd !== undefined ? { approveCmd: opts.approveCmd } : {}),
  });
  const reached = () =>
    readFileSync(join(dir, 'calls.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { name: string; args: Record<string, unknown> });
  /** Resolves once `n` calls have reached the server (a lost reply's call among them). */
  const arrived = (n: number) => whenFile(join(dir, 'calls.jsonl'), () => (reached().length >= n ? true : undefined));
  return { dir, journal, client: guard.client, log: guard.log, reached, arrived };
}

describe('oneway guard when the server fails', () => {
  it('answers a crash mid-call with an error, journals it as ambiguous, and starts the server again', async () => {
    const { journal, client, log } = await misbehaving();
    const crashed = await client.callTool({ name: 'crash', arguments: {} });
    expect(crashed.isError).toBe(true);
    expect(textOf(crashed)).toMatch(/^crash failed: the server closed the connection before it replied/);
    expect(textOf(crashed)).toContain('It may have taken effect');
    // The guard is still there, and so is a server behind it.
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'still here' } });
    expect(echoed.structuredContent).toEqual({ text: 'still here' });
    expect(outcomes(journal).map((c) => [c.tool, c.status, c.ambiguous])).toEqual([
      ['crash', 'fault', true],
      ['echo', 'ok', false],
    ]);
    expect(log.join('\n')).toMatch(/closed the connection; it is reconnected on the next call/);
  });

  it('answers a malformed reply with an error and journals it as an ambiguous failure', async () => {
    const { journal, client } = await misbehaving();
    const garbled = await client.callTool({ name: 'garbled', arguments: {} });
    expect(garbled.isError).toBe(true);
    expect(textOf(garbled)).toMatch(/^garbled failed: the server's reply is not a tool result/);
    const [entry] = outcomes(journal);
    expect(entry).toMatchObject({ tool: 'garbled', status: 'fault', ambiguous: true, applied: false });
    expect((await client.callTool({ name: 'echo', arguments: { text: 'ok' } })).isError).toBeFalsy();
  });

  it('refuses to repeat a call that timed out until a reconciling call has answered', async () => {
    const { dir, journal, client, reached, arrived } = await misbehaving({ hangTimeout: true });
    writeFileSync(join(dir, 'hang'), '');
    const lost = await client.callTool({ name: 'charge', arguments: { to: 'acme', amount: 50 } });
    expect(textOf(lost)).toMatch(
      /^charge failed: no reply within 1 ms\. It may have taken effect: oneway guard refuses the same call until charge_status has answered/,
    );
    await arrived(1); // the server has the call, and never answers it
    rmSync(join(dir, 'hang'));

    const blind = await client.callTool({ name: 'charge', arguments: { to: 'acme', amount: 50 } });
    expect(blind.isError).toBe(true);
    expect(textOf(blind)).toMatch(
      /^refused by oneway guard: unreconciled retry: the same call failed ambiguously at step 1/,
    );
    expect(textOf(blind)).toContain('what is missing: a reply from charge_status about the failed call');
    // Another call is not the same call: not a retry.
    const other = await client.callTool({ name: 'charge', arguments: { to: 'globex', amount: 50 } });
    expect(other.isError).toBeFalsy();

    const status = await client.callTool({ name: 'charge_status', arguments: { to: 'acme' } });
    expect(status.structuredContent).toEqual({ applied: true });
    // The reconciler says it applied: the repeat is no longer a blind retry, but a second charge,
    // which nobody approved (no client elicitation, no --approve-cmd).
    const again = await client.callTool({ name: 'charge', arguments: { to: 'acme', amount: 50 } });
    expect(textOf(again)).toMatch(
      /^refused by oneway guard: duplicate: the same call applied at step 1, and approval to repeat it was denied/,
    );
    expect(textOf(again)).toContain('what is missing: an approval to do it a second time');

    expect(reached().map((c) => `${c.name} ${String(c.args.to)}`)).toEqual([
      'charge acme',
      'charge globex',
      'charge_status acme',
    ]);
    const calls = outcomes(journal);
    expect(calls.map((c) => [c.tool, c.status])).toEqual([
      ['charge', 'fault'],
      ['charge', 'blocked'],
      ['charge', 'ok'],
      ['charge_status', 'ok'],
      ['charge', 'blocked'],
    ]);
    expect(calls[0]).toMatchObject({ ambiguous: true, error: 'no reply within 1 ms' });
    // The reconciler reports on the calls that had reached the server: the lost charge among them.
    expect(calls[3]?.reconciled?.calls?.map((c) => c.step)).toEqual([1]);
  });

  it('fills a declared idempotency key the client left out: a new one after a success, for an approved second call', async () => {
    const { client, reached, journal } = await misbehaving({ approveCmd: 'true' });
    const first = await client.callTool({ name: 'pay', arguments: { to: 'acme', amount: 10 } });
    // A second payment of the same call is a duplicate: --approve-cmd approves it.
    const second = await client.callTool({ name: 'pay', arguments: { to: 'acme', amount: 10 } });
    const own = await client.callTool({ name: 'pay', arguments: { to: 'acme', amount: 10, key: 'client-key-1' } });
    expect([first, second, own].map((r) => r.isError ?? false)).toEqual([false, false, false]);
    expect(outcomes(journal).map((c) => c.approved_by)).toEqual(['policy', 'cmd', 'cmd']);
    const keys = reached().map((c) => c.args.key as string);
    expect(keys[0]).toMatch(/^oneway-[0-9a-f]{32}$/);
    // The second payment of the same call after the first succeeded is meant: it gets a key of its own.
    expect(keys[1]).toMatch(/^oneway-[0-9a-f]{32}$/);
    expect(keys[1]).not.toBe(keys[0]);
    expect(keys[2]).toBe('client-key-1');
    // The journal holds the arguments as forwarded, key included.
    expect(outcomes(journal).map((c) => c.args.key)).toEqual(keys);
  });

  it('refuses a repeat after an ambiguous failure whatever its key: the filled one of the failed call, or a fresh one', async () => {
    const { dir, client, reached, arrived, journal } = await misbehaving({ hangTimeout: true });
    writeFileSync(join(dir, 'hang'), '');
    const lost = await client.callTool({ name: 'pay', arguments: { to: 'initech', amount: 5 } });
    expect(textOf(lost)).toMatch(/^pay failed: no reply within 1 ms/);
    await arrived(1); // the server has the call, and never answers it
    rmSync(join(dir, 'hang'));
    // The same key as the failed call: nothing says the server stored it before it failed.
    const retry = await client.callTool({ name: 'pay', arguments: { to: 'initech', amount: 5 } });
    expect(textOf(retry)).toMatch(
      /^refused by oneway guard: unreconciled retry: the same call failed ambiguously at step 1/,
    );
    const fresh = await client.callTool({ name: 'pay', arguments: { to: 'initech', amount: 5, key: 'fresh-key' } });
    expect(textOf(fresh)).toMatch(/^refused by oneway guard: unreconciled retry/);
    expect(reached()).toHaveLength(1);
    expect(outcomes(journal).map((c) => c.status)).toEqual(['fault', 'blocked', 'blocked']);
  });

  it("lets through the failed call's own key when the tools file declares key_survives_failure, and still refuses another key", async () => {
    // The same tools file, with pay's server declared to keep the keys of failed requests.
    const toolsFile = join(tempDir('oneway-guard-kept-'), 'tools.yaml');
    const text = readFileSync(MISBEHAVING_TOOLS, 'utf8');
    const kept = text.replace(
      '  - name: pay\n    reversibility: irreversible\n    idempotency_key: key\n',
      '  - name: pay\n    reversibility: irreversible\n    idempotency_key: key\n    key_survives_failure: true\n',
    );
    expect(kept).not.toBe(text);
    writeFileSync(toolsFile, kept);
    const { dir, client, reached, arrived, journal } = await misbehaving({ hangTimeout: true, toolsFile });
    writeFileSync(join(dir, 'hang'), '');
    const lost = await client.callTool({ name: 'pay', arguments: { to: 'initech', amount: 5 } });
    expect(textOf(lost)).toMatch(/^pay failed: no reply within 1 ms/);
    await arrived(1);
    rmSync(join(dir, 'hang'));
    // Another key is another request to the server: nothing answers it from the failed one.
    const fresh = await client.callTool({ name: 'pay', arguments: { to: 'initech', amount: 5, key: 'fresh-key' } });
    expect(textOf(fresh)).toMatch(
      /^refused by oneway guard: unreconciled retry: the same call failed ambiguously at step 1/,
    );
    // The same call with no key gets the failed call's filled key, which the server kept: it goes through.
    const same = await client.callTool({ name: 'pay', arguments: { to: 'initech', amount: 5 } });
    expect(same.isError).toBeFalsy();
    expect(reached()).toHaveLength(2);
    const [first, , second] = outcomes(journal);
    expect(second?.args.key).toBe(first?.args.key);
    expect(outcomes(journal).map((c) => c.status)).toEqual(['fault', 'blocked', 'ok']);
  });
});
