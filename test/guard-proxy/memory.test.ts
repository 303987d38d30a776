/**
 * The example, end to end against the real @modelcontextprotocol/server-memory: an agent
 * (the official SDK client) creates entities and relations through `oneway guard`, the guard
 * refuses delete_entities under `irreversible: approval` (nobody to ask), and `oneway recover
 * JOURNAL --apply --approve -- COMMAND` leaves the server's graph as it was before the session, read back
 * from the server.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { main as recover } from '../../harness/cli/recover.ts';
import { REPO_ROOT } from '../../harness/cli/common.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { eventsOf, guardCommand, MEMORY_SERVER, MEMORY_TOOLS, outcomes, textOf } from './helpers.ts';

const POLICY = join(REPO_ROOT, 'examples/guard/policy.yaml');

/**
 * A client of its own on server-memory over `memoryFile`, straight to the server (no guard in
 * between): `graph()` is the graph as the server reads it back (read_graph). The server reads its
 * file on every call, so one reader sees each change the guard and recover make.
 */
async function reader(memoryFile: string): Promise<{ graph(): Promise<unknown>; close(): Promise<void> }> {
  const client = new Client({ name: 'reader', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [MEMORY_SERVER],
      env: { ...(process.env as Record<string, string>), MEMORY_FILE_PATH: memoryFile },
      stderr: 'ignore',
    }),
  );
  return {
    graph: async () => (await client.callTool({ name: 'read_graph', arguments: {} })).structuredContent,
    close: () => client.close(),
  };
}

const before = process.env.MEMORY_FILE_PATH;
afterEach(() => {
  if (before === undefined) delete process.env.MEMORY_FILE_PATH;
  else process.env.MEMORY_FILE_PATH = before;
});

describe('oneway guard in front of server-memory', () => {
  it('journals what an agent created, refuses the irreversible delete, and recover --apply restores the graph', async () => {
    const dir = tempDir('oneway-guard-memory-');
    const memory = join(dir, 'memory.jsonl');
    const journal = join(dir, 'journal.jsonl');
    // What the graph held before the session: one entity the agent will try to create again and to delete.
    writeFileSync(
      memory,
      `${JSON.stringify({ type: 'entity', name: 'Lovelace', entityType: 'person', observations: ['wrote the first program'] })}\n`,
    );
    const server = await reader(memory);
    onTestFinished(() => server.close());
    const initial = await server.graph();
    expect(initial).toEqual({
      entities: [{ name: 'Lovelace', entityType: 'person', observations: ['wrote the first program'] }],
      relations: [],
    });

    const guard = await guardCommand(
      [`--tools=${MEMORY_TOOLS}`, `--policy=${POLICY}`, `--journal=${journal}`, '--', process.execPath, MEMORY_SERVER],
      { MEMORY_FILE_PATH: memory },
    );
    const agent = guard.client;
    const created = await agent.callTool({
      name: 'create_entities',
      arguments: {
        entities: [
          { name: 'Ada', entityType: 'person', observations: [] },
          { name: 'Babbage', entityType: 'person', observations: ['built the engine'] },
          // Exists already: the server skips it, and recovery must not delete it.
          { name: 'Lovelace', entityType: 'person', observations: [] },
        ],
      },
    });
    expect(created.isError).toBeFalsy();
    const related = await agent.callTool({
      name: 'create_relations',
      arguments: {
        relations: [
          { from: 'Ada', to: 'Babbage', relationType: 'corresponds with' },
          { from: 'Babbage', to: 'Lovelace', relationType: 'works with' },
        ],
      },
    });
    expect(related.isError).toBeFalsy();
    const refused = await agent.callTool({ name: 'delete_entities', arguments: { entityNames: ['Lovelace'] } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /^refused by oneway guard: approval for delete_entities was denied \(nobody to ask/,
    );
    expect(textOf(refused)).toContain('what is missing: an approval');
    expect(refused._meta).toMatchObject({ 'oneway/status': 'blocked' });
    await agent.close();

    // The refused call never reached the server; the others are journaled with their concrete compensations.
    expect(eventsOf(journal, 'intent').map((i) => i.tool)).toEqual(['create_entities', 'create_relations']);
    const calls = outcomes(journal);
    expect(calls.map((c) => [c.tool, c.status])).toEqual([
      ['create_entities', 'ok'],
      ['create_relations', 'ok'],
      ['delete_entities', 'blocked'],
    ]);
    expect(calls[0]?.compensation).toEqual({
      operation: 'delete_entities',
      args: { entityNames: ['Ada', 'Babbage'] },
      requires_approval: true,
    });
    expect(calls[1]?.compensation?.args).toEqual({
      relations: [
        { from: 'Ada', to: 'Babbage', relationType: 'corresponds with' },
        { from: 'Babbage', to: 'Lovelace', relationType: 'works with' },
      ],
    });
    expect(await server.graph()).not.toEqual(initial);

    // The checklist, from the journal alone.
    const checklist = await runCli(recover, [journal]);
    expect(checklist.code).toBe(0);
    expect(checklist.stdout).toContain('journal of oneway guard in front of');
    expect(checklist.stdout).toContain('2 effects, newest first: 2 to compensate with approval');

    // The compensations, issued against the real server, newest first, journaled too.
    process.env.MEMORY_FILE_PATH = memory;
    // The undo of a create is a delete, irreversible itself: the creates are compensable, and their
    // compensations wait for --approve.
    const unapproved = await runCli(recover, [
      journal,
      '--apply',
      `--tools=${MEMORY_TOOLS}`,
      '--',
      process.execPath,
      MEMORY_SERVER,
    ]);
    expect(unapproved.code).toBe(1);
    expect(unapproved.stdout).toContain('✗ step 1 create_entities: not issued: needs approval (--approve)');
    expect(await server.graph()).not.toEqual(initial);
    const applied = await runCli(recover, [
      journal,
      '--apply',
      '--approve',
      `--tools=${MEMORY_TOOLS}`,
      '--',
      process.execPath,
      MEMORY_SERVER,
    ]);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(
      /✓ step 2 create_relations: compensated delete_relations[^\n]*\n {2}✓ step 1 create_entities: compensated delete_entities\(\{"entityNames":\["Ada","Babbage"\]\}\)/,
    );
    expect(applied.stdout).toContain('DONE: every compensation the journal calls for was issued');
    expect(await server.graph()).toEqual(initial);
    expect(
      outcomes(journal)
        .slice(3)
        .map((c) => [c.tool, c.status, c.session, c.approved_by]),
    ).toEqual([
      ['delete_relations', 'ok', 'recover', 'operator'],
      ['delete_entities', 'ok', 'recover', 'operator'],
    ]);

    // Done once: the journal now shows every effect compensated, and a second --apply issues nothing.
    const again = await runCli(recover, [
      journal,
      '--apply',
      '--approve',
      `--tools=${MEMORY_TOOLS}`,
      '--',
      process.execPath,
      MEMORY_SERVER,
    ]);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain('✓');
    expect(outcomes(journal)).toHaveLength(5);
  });
});
