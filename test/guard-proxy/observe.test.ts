/**
 * `oneway guard --observe` in front of the real server-filesystem: every call is forwarded (the
 * blind overwrite and the parallel writes happen), and the journal says with each what the policy
 * would have decided: refuse (the reason, the preconditions missing), ask for approval (nobody is
 * asked), or nothing (it would have passed). Calls a client makes together share a batch in the
 * journal, as one decision's calls do in evaluation.
 */
import { readFileSync, realpathSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.ts';
import {
  eventsOf,
  FILESYSTEM_SERVER,
  FILESYSTEM_TOOLS,
  guardCommand,
  nodeServer,
  outcomes,
  toolsAt,
  useGuard,
} from './helpers.ts';

const startGuard = useGuard();

function files(): { dir: string; root: string; a: string; b: string } {
  const dir = realpathSync(tempDir('oneway-observe-'));
  const root = join(dir, 'files');
  mkdirSync(root);
  const a = join(root, 'a.txt');
  const b = join(root, 'b.txt');
  writeFileSync(a, 'alpha');
  writeFileSync(b, 'bravo');
  return { dir, root, a, b };
}

describe('oneway guard --observe', () => {
  it('forwards what it would refuse and journals why; a call it would pass carries no verdict', async () => {
    const { dir, root, a, b } = files();
    const journal = join(dir, 'journal.jsonl');
    const guard = await startGuard({
      tools: toolsAt(FILESYSTEM_TOOLS),
      toolsFile: FILESYSTEM_TOOLS,
      target: nodeServer(FILESYSTEM_SERVER, [root]),
      journal,
      observe: true,
    });
    const { client } = guard;
    // A blind overwrite: forwarded, the file is overwritten.
    const blind = await client.callTool({ name: 'write_file', arguments: { path: a, content: 'one' } });
    expect(blind.isError).toBeFalsy();
    expect(blind._meta).toMatchObject({ 'oneway/status': 'ok' });
    expect(readFileSync(a, 'utf8')).toBe('one');
    // Read, then overwrite: what the policy lets through.
    await client.callTool({ name: 'read_text_file', arguments: { path: b } });
    await client.callTool({ name: 'write_file', arguments: { path: b, content: 'two' } });
    // Two irreversible writes sent together: both happen, each would have been refused as not alone.
    const both = await Promise.all([
      client.callTool({ name: 'write_file', arguments: { path: b, content: 'three' } }),
      client.callTool({ name: 'move_file', arguments: { source: a, destination: join(root, 'c.txt') } }),
    ]);
    expect(both.map((r) => r.isError ?? false)).toEqual([false, false]);
    // An undeclared tool: forwarded too (the directory is made).
    await client.callTool({ name: 'create_directory', arguments: { path: join(root, 'new') } });
    await guard.close();

    expect(eventsOf(journal, 'run_start')[0]?.journal?.observe).toBe(true);
    const calls = outcomes(journal);
    expect(calls.every((c) => c.status === 'ok')).toBe(true);
    // In the order journaled: the two made together in either order, in one batch (the batch of the first).
    const row = (c: (typeof calls)[number]) => `${c.batch} ${c.tool} ${c.would?.decision ?? 'pass'}`;
    expect(calls.map(row).sort()).toEqual([
      '1 write_file refuse',
      '2 read_text_file pass',
      '3 write_file pass',
      '4 move_file refuse',
      '4 write_file refuse',
      '6 create_directory refuse',
    ]);
    expect(calls[0]?.would).toEqual({
      decision: 'refuse',
      reason: `missing preconditions: file_read(path=${a})`,
      missing: [`file_read(path=${a})`],
    });
    for (const c of calls.filter((c) => c.batch === 4))
      expect(c.would).toMatchObject({ decision: 'refuse', reason: expect.stringContaining('alone') });
    expect(calls.find((c) => c.tool === 'create_directory')?.would).toMatchObject({
      decision: 'refuse',
      reason: expect.stringContaining('not declared'),
    });
  });

  it('journals "would ask" under an approval policy and asks nobody', async () => {
    const { dir, root, a } = files();
    const journal = join(dir, 'journal.jsonl');
    writeFileSync(join(dir, 'policy.yaml'), 'irreversible: approval\n');
    const g = await guardCommand([
      `--tools=${FILESYSTEM_TOOLS}`,
      `--policy=${join(dir, 'policy.yaml')}`,
      `--journal=${journal}`,
      '--observe',
      '--',
      process.execPath,
      FILESYSTEM_SERVER,
      root,
    ]);
    try {
      await g.client.callTool({ name: 'read_text_file', arguments: { path: a } });
      const w = await g.client.callTool({ name: 'write_file', arguments: { path: a, content: 'x' } });
      expect(w.isError).toBeFalsy();
      expect(readFileSync(a, 'utf8')).toBe('x');
      expect(g.stderr()).toContain('observing: every call is forwarded');
    } finally {
      await g.client.close();
    }
    expect(outcomes(journal).map((c) => [c.tool, c.would ?? null])).toEqual([
      ['read_text_file', null],
      ['write_file', { decision: 'ask' }],
    ]);
  });
});
