/**
 * `npm run serve -- --transport=http`: the SDK's client over Streamable HTTP
 * to the server as a child process (as real clients are), with concurrent
 * sessions, malformed requests and clients that vanish; and the endpoint in
 * this process, whose seal must let the endpoint's own traffic through.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Results } from '../../harness/engine/results/types.ts';
import {
  DEFAULT_MAX_SESSIONS,
  loopbackOrigin,
  MAX_MESSAGE_BYTES,
  startHttpHost,
  type HttpHost,
} from '../../harness/features/mcp/http.ts';
import { serveHttp, type HttpServing, type ServeOptions } from '../../harness/features/mcp/serve.ts';
import { seal } from '../../harness/engine/sandbox/seal.ts';
import { REPO_ROOT } from '../../harness/cli/common.ts';
import { tempDir } from '../helpers/cli.ts';
import { readResults } from '../helpers/results.ts';
import { EMAIL, FIXTURE, fixtureScenario, runOf, signal, startServe, textOf, type ServeProcess } from './helpers.ts';

function options(out: string, over: Partial<ServeOptions> = {}): ServeOptions {
  return {
    scenario: { scenario: fixtureScenario(), file: 'notify.yaml' },
    outDir: out,
    seed: 1,
    transport: 'msw',
    maxTurns: 50,
    decisionTimeoutMs: 60_000,
    ...over,
  }; // a safety net, however busy the machine
}

/** `body`, passed on as read; `ended()` once it is over, read to its end, failed or cancelled. */
function watchEnd(body: ReadableStream<Uint8Array>, ended: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          ended();
        } else controller.enqueue(value);
      } catch (e) {
        controller.error(e);
        ended();
      }
    },
    cancel(reason) {
      ended();
      return reader.cancel(reason);
    },
  });
}

/**
 * The SDK's client, connected to `url`; `end()` leaves with nothing in flight. The client holds a
 * standalone GET stream open (serve takes it): closing the client aborts that request while it
 * runs, and fetch (undici) then dials the server again for it once the socket closes, after the
 * test is over: into the next test, which may hold this process's seal (a CONNECT counted as an
 * unattributed escape there). `end()` ends the session (DELETE: the server ends the stream), waits
 * for every GET stream of the client to be over, then closes it.
 */
async function client(
  url: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport; end(): Promise<void> }> {
  const streams: Promise<void>[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: (input, init) => {
      if ((init?.method ?? 'GET') !== 'GET') return fetch(input, init);
      let ended!: () => void;
      streams.push(new Promise<void>((r) => (ended = r)));
      return fetch(input, init).then(
        (res) => {
          if (res.body) return new Response(watchEnd(res.body, ended), res);
          ended();
          return res;
        },
        (e: unknown) => {
          ended();
          throw e;
        },
      );
    },
  });
  const c = new Client({ name: 'oneway-test', version: '1.0.0' });
  await c.connect(transport);
  return {
    client: c,
    transport,
    async end() {
      await transport.terminateSession();
      await Promise.all(streams);
      await c.close();
    },
  };
}

/** A raw JSON-RPC POST to the endpoint. */
async function post(
  url: string,
  body: string,
  session?: string,
): Promise<{ status: number; json: { error?: { code: number; message: string } } }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } : {}),
    },
    body,
  });
  return { status: res.status, json: (await res.json()) as { error?: { code: number; message: string } } };
}

/** Where node:http sends a request for `url`. */
function target(url: string): { host: string; port: string; path: string } {
  const u = new URL(url);
  return { host: u.hostname, port: u.port, path: u.pathname };
}

/** A raw request with any headers (Host included, which fetch does not let a caller set). */
function raw(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<{
  status: number;
  headers: Record<string, unknown>;
  json: { error?: { code: number; message: string }; result?: unknown };
}> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        ...target(url),
        method: opts.method ?? 'POST',
        headers: { accept: 'application/json, text/event-stream', ...opts.headers },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += String(d)));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text ? (JSON.parse(text) as never) : {} }),
        );
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}
const JSON_TYPE = { 'content-type': 'application/json' };

/** A session's standalone GET stream, held open until `close()`. */
function openStream(url: string, session: string): Promise<{ status: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        ...target(url),
        method: 'GET',
        headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
      },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
      },
    );
    req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
    req.end();
  });
}

/** A session through the handshake (initialize, then notifications/initialized): its id. */
async function initialized(url: string): Promise<string> {
  const init = await raw(url, { headers: JSON_TYPE, body: INIT });
  const session = String(init.headers['mcp-session-id']);
  await raw(url, {
    headers: { ...JSON_TYPE, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return session;
}

/** Resolves once `check()` holds, looking again on each turn of the event loop (no timers: they may be faked). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setImmediate(r));
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

let host: HttpHost | undefined;
let serving: HttpServing | undefined;
// The servers: one whose runs each test finds by record path, one whose clients leave, one with a
// short decision timeout (short, but long enough for a client on a busy machine to make its next
// request in time), and two that take two sessions at once: one for the test that counts every
// run its server records (no other test's session is recorded there meanwhile), one for the others.
const servers: Record<'shared' | 'leave' | 'vanish' | 'guarded' | 'refusing', { out: string; serve?: ServeProcess }> = {
  shared: { out: tempDir('oneway-mcp-http-') },
  leave: { out: tempDir('oneway-mcp-http-') },
  vanish: { out: tempDir('oneway-mcp-http-') },
  guarded: { out: tempDir('oneway-mcp-http-') },
  refusing: { out: tempDir('oneway-mcp-http-') },
};
const EXTRA: Record<keyof typeof servers, string[]> = {
  shared: [],
  leave: [],
  vanish: ['--decision-timeout=2000'],
  guarded: ['--max-sessions=2'],
  refusing: ['--max-sessions=2'],
};
/** The run a finish result names (its record path). */
const finishedRun = (results: Results, finish: unknown) => {
  const record = (finish as { _meta?: Record<string, unknown> })._meta?.['oneway/record'];
  const run = results.runs.find((r) => r.record === record);
  if (!run) throw new Error(`no run recorded in ${String(record)}`);
  return run;
};
const urlOf = (k: keyof typeof servers) => servers[k].serve?.url ?? '';
/** A client in its own process that makes one call and exits without ending its session. */
const LEAVER = resolve(REPO_ROOT, 'test/mcp/fixtures/http-leaver.mjs');
/** The reason the run's finish turn gives, from its record. */
const finishReason = (out: string, record: string): unknown =>
  readFileSync(join(out, record), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; decision?: string; reason?: unknown })
    .find((e) => e.type === 'turn' && e.decision === 'finish')?.reason;

beforeAll(async () => {
  await Promise.all(
    Object.entries(servers).map(async ([k, s]) => {
      s.serve = await startServe([`--scenario=${FIXTURE}`, `--out=${s.out}`, ...EXTRA[k as keyof typeof servers]]);
    }),
  );
});
afterAll(async () => {
  const codes = await Promise.all(Object.values(servers).map((s) => s.serve?.stop()));
  expect(codes).toEqual(Object.keys(servers).map(() => 0));
});
afterEach(async () => {
  await serving?.close();
  await host?.close();
  serving = host = undefined;
});

describe('npm run serve over HTTP', () => {
  it('gives concurrent sessions separate worlds, each scored as its own run', async () => {
    expect(urlOf('shared')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const a = await client(urlOf('shared'));
    const b = await client(urlOf('shared'));

    // A verifies the recipient; that fact is A's alone, so B's send is still premature.
    await a.client.callTool({ name: 'verify_recipient', arguments: { email: EMAIL } });
    const [sentB, sentA] = await Promise.all([
      b.client.callTool({ name: 'send_email', arguments: { email: EMAIL } }),
      a.client.callTool({ name: 'send_email', arguments: { email: EMAIL } }),
    ]);
    expect(sentA.isError).toBeFalsy();
    expect(sentB.isError).toBeFalsy();
    const [doneA, doneB] = await Promise.all([
      a.client.callTool({ name: 'finish', arguments: {} }),
      b.client.callTool({ name: 'finish', arguments: {} }),
    ]);

    // finish answers once the run is recorded and results.json rewritten.
    const results = readResults(servers.shared.out);
    const [runA, runB] = [finishedRun(results, doneA), finishedRun(results, doneB)];
    expect(runA).toMatchObject({
      planner: 'mcp',
      steps: 2,
      completed: true,
      safe_completed: true,
      premature: { irreversible: 0 },
    });
    expect(runB).toMatchObject({
      planner: 'mcp',
      steps: 1,
      completed: true,
      safe_completed: false,
      premature: { irreversible: 1 },
    });
    expect(results.summary[0]).toMatchObject({ planner: 'mcp', runs: results.runs.length });
    // Session N is trial N, with trial N's seed: as npm run eval would run it. Other tests of this
    // file may have opened sessions on this server before (in a shuffled order): two trials in a row.
    const [first, second] = [runA.trial, runB.trial].sort((x, y) => x - y) as [number, number];
    expect(second).toBe(first + 1);
    expect(runA.seed).not.toBe(runB.seed);
    await Promise.all([a.end(), b.end()]);
  });

  it('answers malformed requests and unknown tools with errors, and the run goes on', async () => {
    const url = urlOf('shared');
    const { client: c, transport, end } = await client(url);
    const session = transport.sessionId;
    expect(session).toBeTruthy();

    const garbage = await post(url, '{"jsonrpc": "2.0", "id": 7, "method": ', session);
    expect(garbage).toMatchObject({ status: 400, json: { error: { code: -32700 } } });
    const noName = await post(
      url,
      JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { arguments: {} } }),
      session,
    );
    expect(noName.json.error?.message).toMatch(/invalid|required|expected/i);
    const noMethod = await post(
      url,
      JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/explode', params: {} }),
      session,
    );
    expect(noMethod.json.error?.code).toBe(-32601);
    const noSession = await post(url, JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'tools/list' }));
    expect(noSession.status).toBe(400);
    const staleSession = await post(
      url,
      JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'tools/list' }),
      'no-such-session',
    );
    expect(staleSession.status).toBe(404);

    const unknown = await c.callTool({ name: 'delete_everything', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('unknown tool "delete_everything"');
    const ok = await c.callTool({ name: 'verify_recipient', arguments: { email: EMAIL } });
    expect(ok.isError).toBeFalsy();
    const done = await c.callTool({ name: 'finish', arguments: {} });

    const run = finishedRun(readResults(servers.shared.out), done);
    expect(run).toMatchObject({ end_reason: 'finish', error: null, steps: 1 });
    await end();
  });

  it('ends the run as a finish when the client ends its session (DELETE: at once) or leaves (its GET stream closes)', async () => {
    const url = urlOf('leave');
    const polite = await client(url); // trial 1: ends its session (DELETE)
    await polite.client.callTool({ name: 'verify_recipient', arguments: { email: EMAIL } });
    await polite.end();
    // Each run's line on stderr is printed once it is recorded and results.json rewritten.
    await servers.leave.serve?.waitFor(/trial 1: finish/);

    const closing = await client(url); // trial 2: closes its transport without a DELETE
    await closing.client.callTool({ name: 'send_email', arguments: { email: EMAIL } });
    // (fetch dials again for the aborted GET stream as its socket closes: before the server, which
    // sees that socket close, can end the run 2 s later, so within this test.)
    await closing.client.close();

    // trial 3: a client process that exits after a call, ending nothing (as over stdio, stdin closing).
    // Started while the server still waits to see whether trial 2's client comes back: the two waits overlap.
    const exited = spawn(process.execPath, [LEAVER, url, 'verify_recipient', EMAIL], { stdio: 'ignore' });
    expect(await new Promise((r) => exited.once('exit', r))).toBe(0);
    await servers.leave.serve?.waitFor(/trial 2: finish/);
    await servers.leave.serve?.waitFor(/trial 3: finish/);

    const results = readResults(servers.leave.out);
    expect(runOf(results, 'mcp', 1)).toMatchObject({ end_reason: 'finish', error: null, steps: 1 });
    expect(runOf(results, 'mcp', 2)).toMatchObject({
      end_reason: 'finish',
      error: null,
      steps: 1,
      premature: { irreversible: 1 },
    });
    expect(runOf(results, 'mcp', 3)).toMatchObject({ end_reason: 'finish', error: null, steps: 1 });
    // The record says how each session ended.
    expect([1, 2, 3].map((t) => finishReason(servers.leave.out, runOf(results, 'mcp', t).record))).toEqual([
      'the client closed the session',
      'the client disconnected (its event stream closed)',
      'the client disconnected (its event stream closed)',
    ]);
  });

  it('ends the run of a client that holds no stream and goes quiet by the decision timeout', async () => {
    const url = urlOf('vanish');
    // A bare client: it completes the handshake and calls, but never opens the GET stream.
    const init = await raw(url, { headers: JSON_TYPE, body: INIT });
    const session = String(init.headers['mcp-session-id']);
    const sessionHeaders = { ...JSON_TYPE, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    const initialized = await raw(url, {
      headers: sessionHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(initialized.status).toBe(202);
    const sent = await raw(url, {
      headers: sessionHeaders,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'send_email', arguments: { email: EMAIL } },
      }),
    });
    expect(sent.status).toBe(200);
    // Nothing tells the server it left: the decision timeout ends its run, which is recorded like any other.
    await servers.vanish.serve?.waitFor(/trial 1: /);
    expect(runOf(readResults(servers.vanish.out), 'mcp', 1)).toMatchObject({
      end_reason: 'decision_timeout',
      steps: 1,
      premature: { irreversible: 1 },
    });
  });

  it('lets its own endpoint through the seal of the process it runs in', async () => {
    const out = tempDir('oneway-mcp-http-');
    const escapes = seal.unattributed.length;
    const recorded = signal();
    serving = await serveHttp(options(out, { onRunDone: () => recorded.resolve() }));
    expect(seal.active).toBe(true);
    const init = await fetch(serving.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: INIT,
    });
    expect(init.status).toBe(200);
    expect(((await init.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe('oneway');
    const session = init.headers.get('mcp-session-id') ?? '';
    // The handshake completes with notifications/initialized: from then on the session is a run.
    const initialized = await fetch(serving.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(initialized.status).toBe(202);
    await initialized.text();
    const listed = await post(serving.url, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), session);
    expect(listed.status).toBe(200);
    const deleted = await fetch(serving.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
    });
    expect(deleted.status).toBe(200);
    await deleted.text();
    await recorded.promise;
    expect(readResults(out).runs).toHaveLength(1);
    expect(runOf(readResults(out), 'mcp')).toMatchObject({ end_reason: 'finish', steps: 0 });
    // Its own endpoint's requests only: another test's socket closing late in this window is not this test's.
    const port = `:${new URL(serving.url).port}`;
    expect(seal.unattributed.slice(escapes).filter((e) => e.url.includes(port))).toEqual([]);
  });

  it("serves the SDK's own client in the sealed process (its cancelled 202 bodies do not hang)", async () => {
    const out = tempDir('oneway-mcp-http-');
    serving = await serveHttp(options(out));
    expect(seal.active).toBe(true);
    // A hang here fails on the test's timeout (the vitest config): no wall-clock budget of its own.
    const c = await client(serving.url);
    const { tools } = await c.client.listTools();
    expect(tools.length).toBeGreaterThan(1);
    await c.end();
  });

  it('reports a client that drops its connection while a tool call is unanswered', async () => {
    let aborted = 0;
    let called!: () => void;
    const inCall = new Promise<void>((r) => (called = r));
    const abortedCall = signal();
    host = await startHttpHost({
      open() {
        const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
        server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
        server.setRequestHandler(CallToolRequestSchema, () => {
          called();
          return new Promise(() => {}); // never answers
        });
        return {
          server,
          onClose() {},
          onAbortedCall: () => {
            aborted++;
            abortedCall.resolve();
          },
        };
      },
    });
    const { transport } = await client(host.url);
    const session = transport.sessionId ?? '';
    const url = new URL(host.url);
    const req = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-06-18',
      },
    });
    req.on('error', () => {});
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: {} } }));
    await inCall;
    req.destroy();
    await abortedCall.promise;
    expect(aborted).toBe(1);
    await transport.close();
  });

  it('drops a session that sends initialize but never initialized, and gives its place back; a finished handshake stays', async () => {
    const dropped: string[] = [];
    const bothDropped = signal();
    let opened = 0;
    host = await startHttpHost({
      maxSessions: 3,
      handshakeMs: 300,
      open() {
        const name = `session-${++opened}`;
        const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
        server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
        return {
          server,
          onClose: () => {
            dropped.push(name);
            if (dropped.length === 2) bothDropped.resolve();
          },
          onAbortedCall() {},
        };
      },
    });
    const url = host.url;
    const open = () => raw(url, { headers: JSON_TYPE, body: INIT });
    const sessionOf = (r: { headers: Record<string, unknown> }) => String(r.headers['mcp-session-id']);
    // One client finishes the handshake; two stop after initialize, holding the other places.
    const done = await open();
    const initialized = await raw(url, {
      headers: { ...JSON_TYPE, 'mcp-session-id': sessionOf(done), 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(initialized.status).toBe(202);
    const [half1, half2] = [await open(), await open()];
    expect([done.status, half1.status, half2.status]).toEqual([200, 200, 200]);
    await bothDropped.promise;
    expect(dropped).toEqual(['session-2', 'session-3']);
    expect(host.sessions).toBe(1);
    expect(
      (await post(url, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }), sessionOf(half1))).status,
    ).toBe(404);
    // The finished one is still served, and the two places are free again.
    expect(
      (await post(url, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }), sessionOf(done))).status,
    ).toBe(200);
    const [again1, again2] = [await open(), await open()];
    expect([again1.status, again2.status]).toEqual([200, 200]);
  });
});

describe('a client that leaves without ending its session', () => {
  const plainServer = () => {
    const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
    return server;
  };

  it('is seen by its GET stream closing with nothing after it for leftAfterMs; a reconnection keeps the session', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const events: string[] = [];
      host = await startHttpHost({
        leftAfterMs: 1000,
        open: () => ({
          server: plainServer(),
          onClose: () => events.push('close'),
          onAbortedCall() {},
          onLeft: () => events.push('left'),
        }),
      });
      const session = await initialized(host.url);
      const first = await openStream(host.url, session);
      expect(first.status).toBe(200);
      first.close();
      await until(() => vi.getTimerCount() === 1); // the host saw it close: the grace runs
      // The client reconnects within the grace: it has not left, however long it then stays.
      const second = await openStream(host.url, session);
      expect(second.status).toBe(200);
      expect(vi.getTimerCount()).toBe(0);
      vi.advanceTimersByTime(10_000);
      expect(events).toEqual([]);

      second.close();
      await until(() => vi.getTimerCount() === 1);
      vi.advanceTimersByTime(999);
      expect(events).toEqual([]);
      vi.advanceTimersByTime(1);
      await until(() => events.length === 2);
      expect(events).toEqual(['left', 'close']);
      expect(host.sessions).toBe(0);
      const after = await raw(host.url, {
        headers: { ...JSON_TYPE, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
      });
      expect(after.status).toBe(404);
    } finally {
      vi.useRealTimers();
    }
  });

  it('is not watched by a host without leftAfterMs: the GET stream is declined (405)', async () => {
    let left = 0;
    host = await startHttpHost({
      open: () => ({ server: plainServer(), onClose() {}, onAbortedCall() {}, onLeft: () => void left++ }),
    });
    const session = await initialized(host.url);
    const get = await openStream(host.url, session);
    expect(get.status).toBe(405);
    get.close();
    expect(host.sessions).toBe(1);
    expect(left).toBe(0);
  });
});

describe('what serve refuses is no run', () => {
  it('records no run for refused requests: bad Host, cross-origin, not JSON, over the size limit, or no handshake', async () => {
    const url = urlOf('refusing'); // --max-sessions=2, and no other test's sessions
    const statuses: number[] = [];
    // Each refusal three times, more than the two places of this server: a refused request takes none.
    for (let i = 0; i < 3; i++) {
      const badHost = await raw(url, { headers: { ...JSON_TYPE, host: 'evil.example' }, body: INIT });
      const rebound = await raw(url, {
        headers: { ...JSON_TYPE, host: `attacker.example:${new URL(url).port}` },
        body: INIT,
      });
      const crossOrigin = await raw(url, { headers: { ...JSON_TYPE, origin: 'http://evil.example' }, body: INIT });
      const nullOrigin = await raw(url, { headers: { ...JSON_TYPE, origin: 'null' }, body: INIT });
      const textPlain = await raw(url, { headers: { 'content-type': 'text/plain' }, body: INIT }); // a "simple" cross-site form post
      statuses.push(badHost.status, rebound.status, crossOrigin.status, nullOrigin.status, textPlain.status);
      for (const r of [badHost, rebound, crossOrigin, nullOrigin, textPlain]) expect(r.json.error?.code).toBe(-32000);
    }
    expect(new Set(statuses)).toEqual(new Set([403, 415]));

    // Over the size limit: a JSON-RPC error with 413, and the server goes on.
    const huge = await raw(url, { headers: JSON_TYPE, body: Buffer.alloc(MAX_MESSAGE_BYTES + 1024, 0x20) });
    expect(huge).toMatchObject({
      status: 413,
      json: { error: { code: -32600, message: expect.stringContaining(String(MAX_MESSAGE_BYTES)) } },
    });

    // An initialize answered, then the client leaves without completing the handshake: no run.
    for (let i = 0; i < 3; i++) {
      const init = await raw(url, { headers: JSON_TYPE, body: INIT });
      expect(init.status).toBe(200);
      const session = String(init.headers['mcp-session-id']);
      expect(
        (
          await raw(url, {
            method: 'DELETE',
            headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
          })
        ).status,
      ).toBe(200);
    }

    // One real session: the only run recorded, trial 1.
    const c = await client(url);
    await c.client.callTool({ name: 'verify_recipient', arguments: { email: EMAIL } });
    const done = await c.client.callTool({ name: 'finish', arguments: {} });
    await c.end();
    const results = readResults(servers.refusing.out);
    expect(results.runs).toHaveLength(1);
    expect(finishedRun(results, done)).toMatchObject({ trial: 1, end_reason: 'finish', steps: 1 });
  });

  it('takes a browser page on this machine (a loopback Origin), and nothing else', async () => {
    expect(
      ['http://localhost:6274', 'http://127.0.0.1:3000', 'https://[::1]:8443', 'http://localhost'].every(
        loopbackOrigin,
      ),
    ).toBe(true);
    expect(
      [
        'null',
        'http://evil.example',
        'http://localhost.evil.example',
        'http://127.0.0.1.nip.io',
        'file://',
        'http://localhost:1/x',
        'ws://localhost:1',
      ].some(loopbackOrigin),
    ).toBe(false);
    const url = urlOf('guarded');
    const page = await raw(url, { headers: { ...JSON_TYPE, origin: 'http://localhost:6274' }, body: INIT });
    expect(page.status).toBe(200);
    await raw(url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': String(page.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' },
    });
  });

  it(`caps the sessions open at once (default ${DEFAULT_MAX_SESSIONS}; --max-sessions): one more gets a 503 JSON-RPC error`, async () => {
    const url = urlOf('guarded'); // --max-sessions=2
    // Each client finishes its handshake (initialize, then initialized): a session that does not is dropped.
    const open = async () => {
      const r = await raw(url, { headers: JSON_TYPE, body: INIT });
      if (r.status === 200)
        await raw(url, {
          headers: {
            ...JSON_TYPE,
            'mcp-session-id': String(r.headers['mcp-session-id']),
            'mcp-protocol-version': '2025-06-18',
          },
          body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
        });
      return r;
    };
    const end = (r: { headers: Record<string, unknown> }) =>
      raw(url, {
        method: 'DELETE',
        headers: { 'mcp-session-id': String(r.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' },
      });
    const [a, b] = [await open(), await open()];
    expect([a.status, b.status]).toEqual([200, 200]);
    const third = await open();
    expect(third).toMatchObject({
      status: 503,
      json: { error: { code: -32000, message: expect.stringContaining('2 sessions') } },
    });
    expect(third.headers['retry-after']).toBe('1');
    await end(a);
    const again = await open();
    expect(again.status).toBe(200);
    await Promise.all([end(b), end(again)]);
  });
});
