/**
 * `oneway guard --upstream=URL`: in front of a server over Streamable HTTP (here `oneway serve`, a
 * process of its own, as a real server is), and `recover --apply --upstream=URL` against it. And a
 * Streamable HTTP server that breaks the framing (through MSW): a broken SSE event, a body that is
 * not JSON, a stream that ends without the reply, an HTTP 5xx page: each ends its call at once,
 * journaled as ambiguous, and the session goes on.
 */
import { join } from 'node:path';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterEach, describe, expect, it } from 'vitest';
import { main as recover } from '../../harness/cli/recover.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { FIXTURE, fixtureScenario, startServe, type ServeProcess } from '../mcp/helpers.ts';
import { MISBEHAVING_TOOLS, outcomes, textOf, toolsAt, useGuard } from './helpers.ts';

const startGuard = useGuard();
let serve: ServeProcess | undefined;
afterEach(async () => {
  await serve?.stop();
  serve = undefined;
});

describe('oneway guard in front of a server over Streamable HTTP', () => {
  it('enforces the declarations, journals the calls, and recover --apply --upstream issues the compensation', async () => {
    const dir = tempDir('oneway-guard-http-up-');
    serve = await startServe([`--scenario=${FIXTURE}`, `--out=${join(dir, 'serve')}`]);
    const journal = join(dir, 'journal.jsonl');
    const guard = await startGuard({
      tools: fixtureScenario(),
      toolsFile: FIXTURE,
      target: { url: serve.url },
      journal,
    });
    const { client } = guard;

    const early = await client.callTool({ name: 'send_email', arguments: { email: 'bob@acme.example', body: 'hi' } });
    expect(textOf(early)).toContain('missing preconditions: recipient_verified(email=bob@acme.example)');
    const note = await client.callTool({ name: 'add_note', arguments: { customer: 'acme', text: 'called' } });
    expect(note.isError).toBeFalsy();
    const id = (note.structuredContent as { id: string }).id;
    await guard.close();

    expect(outcomes(journal).map((c) => [c.tool, c.status])).toEqual([
      ['send_email', 'blocked'],
      ['add_note', 'ok'],
    ]);
    expect(outcomes(journal)[1]?.compensation).toMatchObject({ operation: 'delete_note', args: { note_id: id } });

    const applied = await runCli(recover, [journal, '--apply', `--tools=${FIXTURE}`, `--upstream=${serve.url}`]);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(`✓ step 2 add_note: compensated delete_note({"note_id":"${id}"})`);
    expect(outcomes(journal).at(-1)).toMatchObject({ tool: 'delete_note', status: 'ok', session: 'recover' });
  });
});

/** An SSE response of these event data lines, then the end of the stream. */
const sse = (...data: string[]) =>
  new HttpResponse(data.map((d) => `event: message\ndata: ${d}\n\n`).join(''), {
    headers: { 'content-type': 'text/event-stream' },
  });

/**
 * A Streamable HTTP MCP server at `url` (MSW, in this process): it answers initialize and
 * tools/list as a server does, and tools/call by the tool's name: `echo` and `charge` with a result
 * in an SSE event; `broken` with an event that is not JSON, then `result: 42`; `garbled` with a JSON
 * content type and a body that is not JSON; `crash` with an SSE stream that ends without the reply;
 * `pay` with a 503 page, as a proxy in front of a server sends.
 */
function framingBreaker(url: string) {
  return setupServer(
    http.get(url, () => new HttpResponse(null, { status: 405 })),
    http.post(url, async ({ request }) => {
      const msg = (await request.json()) as { id?: number; method: string; params?: Record<string, unknown> };
      if (msg.id === undefined) return new HttpResponse(null, { status: 202 });
      const reply = (result: unknown) => JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
      if (msg.method === 'initialize')
        return HttpResponse.json(
          JSON.parse(
            reply({
              protocolVersion: msg.params?.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: 'framing-breaker', version: '1.0.0' },
            }),
          ) as Record<string, unknown>,
        );
      if (msg.method === 'tools/list')
        return sse(
          reply({
            tools: ['echo', 'charge', 'broken', 'garbled', 'crash', 'pay'].map((name) => ({
              name,
              inputSchema: { type: 'object' },
            })),
          }),
        );
      const name = (msg.params as { name: string }).name;
      const args = (msg.params as { arguments: unknown }).arguments;
      switch (name) {
        case 'broken':
          return sse('this is not json', JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: 42 }));
        case 'garbled':
          return new HttpResponse('<html>not json', { headers: { 'content-type': 'application/json' } });
        case 'crash':
          return sse();
        case 'pay':
          return new HttpResponse('<html>503 Service Unavailable</html>', {
            status: 503,
            headers: { 'content-type': 'text/html' },
          });
        default:
          return sse(reply({ content: [{ type: 'text', text: JSON.stringify(args) }], structuredContent: args }));
      }
    }),
  );
}

describe('oneway guard in front of a Streamable HTTP server that breaks the framing', () => {
  it('ends each broken call at once as an ambiguous failure, journals it, and the session goes on', async () => {
    const url = 'http://framing-breaker.test/mcp';
    const server = framingBreaker(url);
    server.listen({ onUnhandledRequest: 'error' });
    try {
      const journal = join(tempDir('oneway-guard-http-framing-'), 'journal.jsonl');
      // The default call timeout (60 s): every broken call must end long before it, on its own.
      const guard = await startGuard({ tools: toolsAt(MISBEHAVING_TOOLS), target: { url }, journal });
      const { client } = guard;
      const said: Record<string, string> = {};
      for (const name of ['broken', 'garbled', 'crash']) {
        const r = await client.callTool({ name, arguments: {} });
        expect(r.isError, name).toBe(true);
        said[name] = textOf(r);
      }
      const pay = await client.callTool({ name: 'pay', arguments: { to: 'acme', amount: 5, key: 'k1' } });
      said.pay = textOf(pay);
      expect(said.broken).toMatch(/^broken failed: the server sent a reply that breaks the JSON-RPC framing/);
      expect(said.garbled).toMatch(/^garbled failed: the server sent a reply that breaks the JSON-RPC framing/);
      expect(said.crash).toMatch(/^crash failed: the server ended the reply stream before it replied/);
      expect(said.pay).toMatch(/^pay failed: .*503/);
      for (const text of Object.values(said)) expect(text).toContain('It may have taken effect');
      // A gated call afterwards is alone: nothing of the broken calls is left in flight.
      const charged = await client.callTool({ name: 'charge', arguments: { to: 'acme', amount: 5 } });
      expect(charged.isError, textOf(charged)).toBeFalsy();
      expect(charged.structuredContent).toEqual({ to: 'acme', amount: 5 });
      expect(outcomes(journal).map((c) => [c.tool, c.status, c.ambiguous])).toEqual([
        ['broken', 'fault', true],
        ['garbled', 'fault', true],
        ['crash', 'fault', true],
        ['pay', 'fault', true],
        ['charge', 'ok', false],
      ]);
      await guard.close();
    } finally {
      server.close();
    }
  });
});
