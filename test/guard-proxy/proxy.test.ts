/**
 * The guard's rules at the boundary, against the real server-memory (and the misbehaving fixture
 * for tools the file does not declare): tools/list passes the server's tools through with their
 * class; undeclared tools are refused unless the policy says otherwise; arguments are checked
 * against the declarations; an irreversible call is not forwarded while another call of the session
 * is in flight; approvals are asked of the client (elicitation), else of --approve-cmd, else refused.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_MAX_SESSIONS } from '../../harness/features/mcp/http.ts';
import { guardHttp } from '../../harness/features/guard-proxy/serve.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, type Policy } from '../../harness/engine/guard/policy.ts';
import { tempDir } from '../helpers/cli.ts';
import {
  eventsOf,
  guardInProcess,
  MEMORY_SERVER,
  MEMORY_TOOLS,
  MISBEHAVING_SERVER,
  MISBEHAVING_TOOLS,
  nodeServer,
  outcomes,
  textOf,
  toolsAt,
  type GuardSetup,
  type InProcessGuard,
  useGuard,
} from './helpers.ts';

const startGuard = useGuard();

const APPROVAL: Policy = { ...DEFAULT_POLICY, irreversible: 'approval' };

async function memoryGuard(setup: Partial<GuardSetup> = {}) {
  const dir = tempDir('oneway-guard-proxy-');
  const journal = join(dir, 'journal.jsonl');
  const guard = await startGuard({
    tools: toolsAt(MEMORY_TOOLS),
    target: nodeServer(MEMORY_SERVER, [], { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }),
    journal,
    ...setup,
  });
  return { dir, journal, client: guard.client, guard };
}

const entity = (name: string) => ({ entities: [{ name, entityType: 'thing', observations: [] }] });

/**
 * One guard for the tests that look at a guard under `irreversible: approval` with nobody to ask
 * (what it lists, and that it refuses): each starts nothing else, and neither reads its journal.
 */
let askingNobody: Promise<InProcessGuard> | undefined;
function approvalGuard(): Promise<InProcessGuard> {
  if (!askingNobody) {
    const dir = tempDir('oneway-guard-proxy-');
    askingNobody = guardInProcess({
      tools: toolsAt(MEMORY_TOOLS),
      target: nodeServer(MEMORY_SERVER, [], { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }),
      journal: join(dir, 'journal.jsonl'),
      policy: APPROVAL,
    });
  }
  return askingNobody;
}
afterAll(async () => {
  await (await askingNobody)?.close();
});

describe('oneway guard: tools/list', () => {
  it("passes the server's tools through, with each declared tool's class in its annotations and _meta", async () => {
    const { client } = await approvalGuard();
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()].sort()).toEqual(
      [
        'add_observations',
        'create_entities',
        'create_relations',
        'delete_entities',
        'delete_observations',
        'delete_relations',
        'open_nodes',
        'read_graph',
        'search_nodes',
      ].sort(),
    );
    // The server's schema and title are passed through; the class is the file's.
    expect(byName.get('create_entities')).toMatchObject({
      title: 'Create Entities',
      inputSchema: { properties: { entities: { type: 'array' } } },
      annotations: { readOnlyHint: false, destructiveHint: true },
      _meta: {
        'oneway/class': 'compensable',
        'oneway/compensating_operation': 'delete_entities',
        'oneway/policy': 'auto',
      },
    });
    expect(byName.get('delete_entities')).toMatchObject({
      annotations: { destructiveHint: true },
      _meta: { 'oneway/class': 'irreversible', 'oneway/compensating_operation': null, 'oneway/policy': 'approval' },
    });
    expect(byName.get('read_graph')).toMatchObject({ annotations: { readOnlyHint: true } });
  });
});

describe('oneway guard: what is refused', () => {
  it('refuses a tool the file does not declare, unless the policy lets undeclared tools through', async () => {
    const dir = tempDir('oneway-guard-undeclared-');
    const setup = {
      tools: toolsAt(MISBEHAVING_TOOLS),
      target: nodeServer(MISBEHAVING_SERVER, [dir]),
    };
    let guard = await startGuard({ ...setup, journal: join(dir, 'a.jsonl') });
    const listed = (await guard.client.listTools()).tools.find((t) => t.name === 'unlisted_in_file');
    expect(listed?._meta).toMatchObject({ 'oneway/undeclared': true, 'oneway/policy': 'block' });
    expect(guard.log.join('\n')).toContain(
      'the server lists 1 tool(s) the file does not declare (refused): unlisted_in_file',
    );
    const refused = await guard.client.callTool({ name: 'unlisted_in_file', arguments: {} });
    expect(textOf(refused)).toMatch(
      /^refused by oneway guard: unlisted_in_file is not declared in the tools file, and undeclared tools are blocked by policy/,
    );
    expect(eventsOf(join(dir, 'a.jsonl'), 'intent')).toEqual([]);
    await guard.close();

    guard = await startGuard({
      ...setup,
      journal: join(dir, 'b.jsonl'),
      policy: { ...DEFAULT_POLICY, undeclared: 'auto' },
    });
    const through = await guard.client.callTool({ name: 'unlisted_in_file', arguments: {} });
    // Forwarded: the server's own answer comes back (this fixture has no handler for it).
    expect(textOf(through)).toBe('unknown tool unlisted_in_file');
    // Journaled as the worst its class could be.
    expect(outcomes(join(dir, 'b.jsonl'))[0]).toMatchObject({ tool: 'unlisted_in_file', class: 'irreversible' });
  });

  it('rejects arguments that violate the declared schema without forwarding them', async () => {
    const { journal, client } = await memoryGuard();
    const bad = await client.callTool({ name: 'create_entities', arguments: { entities: [{ name: 'x' }] } });
    expect(textOf(bad)).toMatch(
      /^refused by oneway guard: invalid arguments for create_entities: entities\[0\]\.entityType: is required/,
    );
    expect(eventsOf(journal, 'rejected')).toMatchObject([{ tool: 'create_entities' }]);
    expect(eventsOf(journal, 'intent')).toEqual([]);
  });

  it('does not forward an irreversible call while another call of the session is in flight', async () => {
    const { journal, client } = await memoryGuard();
    await client.callTool({ name: 'create_entities', arguments: entity('Tmp') });
    // Sent together: the read and the delete are made with each other.
    const [read, together] = await Promise.all([
      client.callTool({ name: 'read_graph', arguments: {} }),
      client.callTool({ name: 'delete_entities', arguments: { entityNames: ['Tmp'] } }),
    ]);
    expect(read.isError).toBeFalsy();
    expect(textOf(together)).toMatch(
      /^refused by oneway guard: an irreversible call must be alone: 1 other call of this session was made with it or is in flight/,
    );
    expect(textOf(together)).toContain('what is missing: the other calls of this session to have returned');
    // Alone, it passes (gated: no preconditions, nothing in flight, nothing ambiguous).
    const alone = await client.callTool({ name: 'delete_entities', arguments: { entityNames: ['Tmp'] } });
    expect(alone.isError).toBeFalsy();
    // Journaled as each ended; in the order they came (steps).
    const byStep = outcomes(journal).sort((x, y) => x.step - y.step);
    expect(byStep.map((c) => [c.tool, c.status])).toEqual([
      ['create_entities', 'ok'],
      ['read_graph', 'ok'],
      ['delete_entities', 'blocked'],
      ['delete_entities', 'ok'],
    ]);
  });

  it('keeps sessions apart: a call in flight in one session does not hold back another session', async () => {
    const { client, guard } = await memoryGuard();
    const other = await guard.session();
    const [a, b] = await Promise.all([
      client.callTool({ name: 'read_graph', arguments: {} }),
      other.callTool({ name: 'delete_entities', arguments: { entityNames: ['nobody'] } }),
    ]);
    expect(a.isError).toBeFalsy();
    expect(b.isError).toBeFalsy();
  });
});

describe('oneway guard: approvals', () => {
  it('asks the client by elicitation where it declares it: accept forwards, decline refuses', async () => {
    const answers = ['accept', 'decline'] as const;
    const asked: string[] = [];
    const { journal, client } = await memoryGuard({
      policy: APPROVAL,
      clientOptions: { capabilities: { elicitation: { form: {} } } },
    });
    let n = 0;
    client.setRequestHandler(ElicitRequestSchema, (req) => {
      asked.push(req.params.message);
      return { action: answers[n++] ?? 'cancel' };
    });
    const accepted = await client.callTool({ name: 'delete_entities', arguments: { entityNames: ['a'] } });
    expect(accepted.isError).toBeFalsy();
    const declined = await client.callTool({ name: 'delete_entities', arguments: { entityNames: ['b'] } });
    expect(textOf(declined)).toMatch(
      /^refused by oneway guard: approval for delete_entities was denied \(declined by the client's user\)/,
    );
    expect(asked[0]).toMatch(
      /^oneway guard: approve delete_entities\(\{"entityNames":\["a"\]\}\)\? It is irreversible/,
    );
    expect(outcomes(journal).map((c) => c.status)).toEqual(['ok', 'blocked']);
  });

  it('else runs --approve-cmd with the call as JSON on stdin: exit 0 approves, any other exit refuses', async () => {
    const dir = tempDir('oneway-guard-approve-');
    const seen = join(dir, 'seen.jsonl');
    // Approves deleting "a", refuses anything else; keeps what it was asked.
    const cmd = `${JSON.stringify(process.execPath)} -e ${JSON.stringify(
      `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{require('fs').appendFileSync(${JSON.stringify(seen)},s);process.exit(JSON.parse(s).arguments.entityNames[0]==='a'?0:3)})`,
    )}`;
    const { journal, client } = await memoryGuard({ policy: APPROVAL, approveCmd: cmd });
    const yes = await client.callTool({ name: 'delete_entities', arguments: { entityNames: ['a'] } });
    const no = await client.callTool({ name: 'delete_entities', arguments: { entityNames: ['b'] } });
    expect(yes.isError).toBeFalsy();
    expect(textOf(no)).toMatch(
      /^refused by oneway guard: approval for delete_entities was denied \(--approve-cmd exited 3\)/,
    );
    const asked = readFileSync(seen, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(asked[0]).toMatchObject({
      tool: 'delete_entities',
      arguments: { entityNames: ['a'] },
      class: 'irreversible',
      preconditions: { held: [], missing: [] },
      step: 1,
      journal,
    });
    expect(outcomes(journal).map((c) => c.status)).toEqual(['ok', 'blocked']);
  });

  it('else refuses: nobody to ask', async () => {
    const { client } = await approvalGuard();
    const r = await client.callTool({ name: 'delete_entities', arguments: { entityNames: ['a'] } });
    expect(textOf(r)).toContain(
      'approval for delete_entities was denied (nobody to ask: the client does not take elicitation and the guard has no --approve-cmd)',
    );
  });
});

describe('oneway guard over HTTP: sessions', () => {
  it('gives the place of an idle session to a new client when every place is taken', async () => {
    const dir = tempDir('oneway-guard-sessions-');
    const guard = await startGuard({
      tools: toolsAt(MISBEHAVING_TOOLS),
      target: nodeServer(MISBEHAVING_SERVER, [dir]),
      journal: join(dir, 'journal.jsonl'),
    });
    const host = await guardHttp(guard.proxy, 0);
    const clients: Client[] = [];
    try {
      // Clients that leave without ending their session: one more than the places.
      for (let i = 0; i <= DEFAULT_MAX_SESSIONS; i++) {
        const c = new Client({ name: `agent-${i}`, version: '1.0.0' });
        await c.connect(new StreamableHTTPClientTransport(new URL(host.url)));
        clients.push(c);
      }
      const last = clients.at(-1) as Client;
      expect((await last.callTool({ name: 'echo', arguments: { text: 'in' } })).structuredContent).toEqual({
        text: 'in',
      });
      expect(host.sessions).toBe(DEFAULT_MAX_SESSIONS);
    } finally {
      for (const c of clients) await c.close();
      await host.close();
    }
  });
});
