/**
 * The network-namespace mode of the seal (issue 39): where the machine gives a process a network
 * namespace of its own (root, or unprivileged user namespaces), a planner file's process runs in one,
 * with no interface at all; its socket layer stays on and allows nothing, and its model requests
 * (a global `fetch` to its model endpoint) are made by the harness over its channel, and counted on
 * its run. Where no namespace can be had these tests skip, saying so in their name: the socket-level
 * mode (test/reliability/planner-isolation.test.ts) is what runs there, and everywhere else too,
 * since the test environment forces it (vitest.config.ts) unless a test asks for a mode.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import { UsageError } from '../../harness/core/errors.ts';
import type { Results } from '../../harness/engine/results/types.ts';
import { loadPlanner } from '../../harness/engine/runner/planners.ts';
import type { PlannerHandle } from '../../harness/engine/runner/run.ts';
import { namespaceSupport, sealMode } from '../../harness/engine/runner/sealed-process.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { runSealed, runSealedFile } from '../helpers/sealed-run.ts';

const support = namespaceSupport();
const skipped = support
  ? ''
  : ' (skipped: this machine gives a process no network namespace: not Linux, no util-linux unshare, or neither root nor unprivileged user namespaces)';
let dir = '';

/** A planner file whose turn-1 `attempt` (an async function body resolving to a word) becomes the email of its one call. */
function plannerFile(name: string, attempt: string): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(
    file,
    `import net from 'node:net'; import http from 'node:http'; import dgram from 'node:dgram'; import os from 'node:os';
async function attempt() { ${attempt} }
export default {
  name: '${name}',
  async next(view) {
    if (view.turn === 1) {
      const got = await attempt().catch((e) => 'threw-' + String(e && e.message).replace(/[^a-z]+/gi, '-').slice(0, 40));
      return { type: 'call', call: { tool: 'verify_recipient', args: { email: got + '@acme.example' } } };
    }
    return { type: 'finish' };
  },
};
`,
  );
  return file;
}

const run = (handle: PlannerHandle, options: Record<string, string>) => runSealed(handle, options, 'namespace');
const runFile = (file: string, options: Record<string, string> = {}) => runSealedFile(file, options, 'namespace');

describe('ONEWAY_SEAL picks the mode, and refuses what it cannot honour', () => {
  it('socket is always there; a value that is no mode is a usage error with a hint', () => {
    expect(sealMode({ ONEWAY_SEAL: 'socket' })).toBe('socket');
    expect(() => sealMode({ ONEWAY_SEAL: 'none' })).toThrow(/ONEWAY_SEAL="none" is not a seal mode/);
    // auto takes a namespace exactly where one can be had, and namespace is honoured only there.
    expect(sealMode({})).toBe(support ? 'namespace' : 'socket');
    if (support) expect(sealMode({ ONEWAY_SEAL: 'namespace' })).toBe('namespace');
    else expect(() => sealMode({ ONEWAY_SEAL: 'namespace' })).toThrow(/no network namespace/);
  });

  it('where no namespace can be had, auto falls back to socket, and namespace is a usage error, never a fallback', () => {
    const none = () => null;
    expect(sealMode({}, none)).toBe('socket');
    expect(sealMode({ ONEWAY_SEAL: 'auto' }, none)).toBe('socket');
    let thrown: unknown;
    try {
      sealMode({ ONEWAY_SEAL: 'namespace' }, none);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as UsageError).message).toBe(
      'ONEWAY_SEAL=namespace, but this machine gives a planner process no network namespace',
    );
    expect((thrown as UsageError).hint).toContain('unset ONEWAY_SEAL');
  });

  it('oneway eval: a bad ONEWAY_SEAL ends with exit 2 before anything runs', async () => {
    vi.stubEnv('ONEWAY_SEAL', 'nope');
    try {
      const out = tempDir();
      const r = await runCli(main, ['--planner=gated', '--scenario=invoice-and-notify', `--out=${out}`]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('is not a seal mode');
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe.skipIf(!support)(`a planner file's process in a network namespace of its own${skipped}`, () => {
  // A loopback canary (TCP and UDP) that must receive nothing, and a model on loopback that answers
  // like a chat completion endpoint, reached only through the harness.
  let canary: Server;
  let udp: UdpSocket;
  let model: HttpServer;
  let port = 0;
  let udpPort = 0;
  let modelPort = 0;
  let hits = 0;
  const modelSaw: { method: string; url: string; auth: string; body: string }[] = [];
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    vi.stubEnv('ONEWAY_SEAL', 'namespace');
    dir = tempDir('oneway-namespace-');
    canary = createServer((s) => {
      sockets.add(s);
      hits++;
      s.on('error', () => {});
      s.destroy();
    });
    await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
    port = (canary.address() as AddressInfo).port;
    udp = createSocket('udp4');
    udp.on('message', () => hits++);
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
    udpPort = udp.address().port;
    model = createHttpServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString('utf8')));
      req.on('end', () => {
        modelSaw.push({ method: req.method ?? '', url: req.url ?? '', auth: String(req.headers.authorization), body });
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            choices: [{ message: { role: 'assistant', content: 'modelsaid' } }],
            usage: { prompt_tokens: 11, completion_tokens: 3 },
          }),
        );
      });
    });
    model.on('connection', (s) => sockets.add(s));
    await new Promise<void>((r) => model.listen(0, '127.0.0.1', r));
    modelPort = (model.address() as AddressInfo).port;
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    for (const s of sockets) s.destroy();
    await new Promise((r) => canary.close(r));
    await new Promise((r) => model.close(r));
    udp.close();
  });

  it('sees no network interface, and every way to the loopback canary is refused and counted: the canary hears nothing', async () => {
    // The model serves the other tests of this file too, in whatever order they run: count what this one sent.
    const saw = modelSaw.length;
    const modelUrl = `http://127.0.0.1:${modelPort}`;
    const file = plannerFile(
      'every-trick',
      `const tries = [];
       const tcp = (o) => new Promise((r) => { const s = net.connect(o, () => { s.destroy(); r('in'); }); s.on('error', () => r('out')); });
       tries.push(Object.keys(os.networkInterfaces()).length === 0 ? 'noif' : 'ifs');
       tries.push(await tcp({ host: '127.0.0.1', port: ${port} }));
       tries.push(await tcp({ host: 'localhost', port: ${port}, lookup: (h, o, cb) => (o && o.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)) }));
       // The model endpoint itself, by a raw request: not carried, so refused (and there is no interface to reach it by).
       tries.push(await new Promise((r) => { const q = http.request('${modelUrl}/v1/chat/completions', { method: 'POST' }, (res) => { res.resume(); r('in'); }); q.on('error', () => r('out')); q.end('{}'); }));
       tries.push(await fetch('http://127.0.0.1:${port}/').then(() => 'in', () => 'out'));
       tries.push(await new Promise((r) => { const u = dgram.createSocket('udp4'); u.on('error', () => r('out')); u.send('hi', ${udpPort}, '127.0.0.1', (e) => { u.close(); r(e ? 'out' : 'in'); }); }));
       return tries.join('-');`,
    );
    const r = await runFile(file, { base_url: `${modelUrl}/v1` });
    expect(r.error).toBeNull();
    expect(r.emails).toEqual(['noif-out-out-out-out-out@acme.example']);
    // Each attempt counted on its run, by the address it was for (a datagram at its implicit bind).
    expect(r.escapes.map((e) => e.url)).toEqual([
      `tcp://127.0.0.1:${port}`,
      `tcp://localhost:${port}`,
      `tcp://127.0.0.1:${modelPort}`,
      `tcp://127.0.0.1:${port}`,
      'udp://0.0.0.0:0',
    ]);
    expect(r.sandbox_escapes).toBe(5);
    expect(hits).toBe(0);
    expect(modelSaw.slice(saw)).toEqual([]);
  });

  it('reaches its model through the harness: a fetch to the model endpoint is made, answered and counted on its run', async () => {
    const before = modelSaw.length;
    const file = plannerFile(
      'llm-through-harness',
      `const res = await fetch('http://127.0.0.1:${modelPort}/v1/chat/completions', {
         method: 'POST',
         headers: { authorization: 'Bearer sk-planner-own', 'content-type': 'application/json' },
         body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
       });
       const answer = await res.json();
       return res.status + '-' + answer.choices[0].message.content;`,
    );
    const r = await runFile(file, { base_url: `http://127.0.0.1:${modelPort}/v1` });
    expect(r.error).toBeNull();
    expect(r.emails).toEqual(['200-modelsaid@acme.example']);
    expect(r.sandbox_escapes).toBe(0);
    expect(modelSaw.slice(before)).toEqual([
      {
        method: 'POST',
        url: '/v1/chat/completions',
        auth: 'Bearer sk-planner-own',
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      },
    ]);
    // Counted by the harness, not reported by the planner (which reports no usage at all).
    expect(r.usage).toEqual({
      prompt_tokens: 0,
      completion_tokens: 0,
      carried: { requests: 1, failed: 0, cached: 0, prompt_tokens: 11, completion_tokens: 3 },
    });
  });

  it("a planner file built on oneway's own LLM planner (the openai SDK) gets its model through the harness too", async () => {
    const before = modelSaw.length;
    const file = join(dir, 'built-on-openai.ts');
    writeFileSync(
      file,
      `import openai from ${JSON.stringify(join(process.cwd(), 'planners', 'openai.ts'))};\nexport default openai;\n`,
    );
    const options = { base_url: `http://127.0.0.1:${modelPort}/v1`, model: 'm' };
    const r = await run(await loadPlanner(file, process.cwd(), options, { OPENAI_API_KEY: 'sk-planner-key' }), options);
    expect(r.error).toBeNull();
    expect(r.sandbox_escapes).toBe(0);
    expect(modelSaw.slice(before).map((m) => [m.method, m.url, m.auth])).toEqual([
      ['POST', '/v1/chat/completions', 'Bearer sk-planner-key'],
    ]);
    // What the planner counted and what the harness counted agree.
    expect(r.usage).toMatchObject({
      prompt_tokens: 11,
      completion_tokens: 3,
      requests: 1,
      carried: { requests: 1, failed: 0, cached: 0, prompt_tokens: 11, completion_tokens: 3 },
    });
  });

  it('a fetch to another origin is not carried: refused by the socket layer and counted', async () => {
    const file = plannerFile(
      'other-origin',
      `return fetch('http://127.0.0.1:${port}/steal').then(() => 'in', () => 'out');`,
    );
    const r = await runFile(file, { base_url: `http://127.0.0.1:${modelPort}/v1` });
    expect(r.emails).toEqual(['out@acme.example']);
    expect(r.sandbox_escapes).toBe(1);
    expect(r.usage).toBeUndefined();
    expect(hits).toBe(0);
  });

  it('a model request forged on the channel to another origin is refused, counted, and never made', async () => {
    const file = plannerFile(
      'forged-fetch-line',
      `const fs = await import('node:fs');
       fs.writeSync(4, JSON.stringify({ t: 'fetch', id: 7, method: 'POST', url: 'http://127.0.0.1:${port}/steal?key=sk-1', headers: [], body: 'a2V5' }) + '\\n');
       // The channel is in order: the harness reads this line before the decision that follows it.
       return 'sent';`,
    );
    const r = await runFile(file, { base_url: `http://127.0.0.1:${modelPort}/v1` });
    expect(r.error).toBeNull();
    expect(r.escapes.map((e) => [e.method, e.url, e.reason])).toEqual([
      ['POST', `http://127.0.0.1:${port}/steal`, 'a model request to an origin that is not its model endpoint'],
    ]);
    expect(r.usage).toBeUndefined();
    expect(hits).toBe(0);
  });

  it('--llm-cache: recorded carried requests are replayed from the cache with the model closed, counted as cached; a miss is an error the planner sees', async () => {
    // A model of its own, closed before the replay: an answer then can only come from the cache.
    const saw: { auth: string; url: string }[] = [];
    const own = createHttpServer((req: IncomingMessage, res) => {
      req.resume();
      req.on('end', () => {
        saw.push({ auth: String(req.headers.authorization), url: req.url ?? '' });
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            choices: [{ message: { role: 'assistant', content: 'said' } }],
            usage: { prompt_tokens: 5, completion_tokens: 2 },
          }),
        );
      });
    });
    const ownSockets = new Set<Socket>();
    own.on('connection', (s) => ownSockets.add(s));
    await new Promise<void>((r) => own.listen(0, '127.0.0.1', r));
    const endpoint = `http://127.0.0.1:${(own.address() as AddressInfo).port}`;
    const cacheDir = join(dir, 'llm-cache');
    // Two identical requests a run; the key rides in the Authorization header and the query, neither of them keyed.
    const asking = (name: string, key: string, content: string) =>
      plannerFile(
        name,
        `const ask = async () => {
           const res = await fetch('${endpoint}/v1/chat/completions?api_key=${key}', {
             method: 'POST',
             headers: { authorization: 'Bearer ${key}', 'content-type': 'application/json' },
             body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: '${content}' }] }),
           });
           return res.status + '-' + (await res.json()).choices[0].message.content;
         };
         return (await ask()) + '-' + (await ask());`,
      );
    const options = (mode: string) => ({ base_url: `${endpoint}/v1`, llm_cache: mode, llm_cache_dir: cacheDir });

    const recorded = await runFile(asking('recording', 'sk-recorded-key', 'hi'), options('record'));
    expect(recorded.error).toBeNull();
    expect(recorded.emails).toEqual(['200-said-200-said@acme.example']);
    expect(saw.map((s) => s.auth)).toEqual(['Bearer sk-recorded-key', 'Bearer sk-recorded-key']);
    expect(recorded.usage).toEqual({
      prompt_tokens: 0,
      completion_tokens: 0,
      carried: { requests: 2, failed: 0, cached: 0, prompt_tokens: 10, completion_tokens: 4 },
    });
    // One file for the two identical requests, holding neither the header nor the query.
    const files = readdirSync(cacheDir);
    expect(files).toHaveLength(1);
    const kept = readFileSync(join(cacheDir, files[0] ?? ''), 'utf8');
    expect(kept).toContain('said');
    expect(kept).not.toContain('sk-recorded-key');

    // A planner file built on the bundled LLM planner: the harness caches for it (its process could write no cassette).
    const builtOn = join(dir, 'built-on-openai-cached.ts');
    writeFileSync(
      builtOn,
      `import openai from ${JSON.stringify(join(process.cwd(), 'planners', 'openai.ts'))};\nexport default openai;\n`,
    );
    const runBuiltOn = async (mode: string) => {
      const o = { ...options(mode), model: 'm' };
      return run(await loadPlanner(builtOn, process.cwd(), o, { OPENAI_API_KEY: 'sk-planner-key' }), o);
    };
    const builtRecorded = await runBuiltOn('record');
    expect(builtRecorded.error).toBeNull();
    const builtAsked = saw.length - 2;
    expect(builtAsked).toBeGreaterThan(0);
    expect(builtRecorded.usage).toMatchObject({ carried: { requests: builtAsked, failed: 0, cached: 0 } });
    expect(readdirSync(cacheDir)).toHaveLength(2);

    for (const s of ownSockets) s.destroy();
    await new Promise((r) => own.close(r));
    const builtReplayed = await runBuiltOn('replay');
    expect(builtReplayed.error).toBeNull();
    expect(builtReplayed.usage).toEqual(
      builtRecorded.usage && {
        ...builtRecorded.usage,
        carried: { ...builtRecorded.usage.carried, cached: builtAsked },
      },
    );
    expect(builtReplayed.events.map((e) => e.type)).toEqual(builtRecorded.events.map((e) => e.type));
    expect(saw).toHaveLength(2 + builtAsked);
    const replayed = await runFile(asking('replaying', 'sk-other-key', 'hi'), options('replay'));
    expect(replayed.error).toBeNull();
    expect(replayed.emails).toEqual(recorded.emails);
    expect(replayed.sandbox_escapes).toBe(0);
    expect(replayed.usage).toEqual({
      prompt_tokens: 0,
      completion_tokens: 0,
      carried: { requests: 2, failed: 0, cached: 2, prompt_tokens: 10, completion_tokens: 4 },
    });
    expect(saw).toHaveLength(2 + builtAsked);

    // A request the cache does not hold: the planner's fetch fails with the miss, counted as failed; nothing is asked.
    const missed = await runFile(asking('missing', 'sk-other-key', 'bye'), options('replay'));
    expect(missed.error).toBeNull();
    expect(missed.emails).toEqual(['threw-fetch-failed-replay-miss-no-cached-answe@acme.example']);
    expect(missed.usage).toEqual({
      prompt_tokens: 0,
      completion_tokens: 0,
      carried: { requests: 1, failed: 1, cached: 0, prompt_tokens: 0, completion_tokens: 0 },
    });
    expect(saw).toHaveLength(2 + builtAsked);
  });

  it('results.json records config.seal.mode "namespace"', async () => {
    const out = tempDir();
    const r = await runCli(main, [
      '--planner=gated',
      '--scenario=invoice-and-notify',
      `--out=${out}`,
      '--transport=inprocess',
    ]);
    expect(r.code).toBe(0);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as Results;
    expect(results.config.seal).toEqual({ mode: 'namespace' });
  });
});
