/**
 * A planner file's process has no network but its model endpoint, no secret and nothing of another
 * process to read (issue 39, failures 1, 2, 3 and the core dump of 12). Each attack is a planner
 * file, loaded and run as eval runs it (in a sealed process of its own, with its run's planner
 * options), whose outcome it reports in the one call it makes; what it reached is counted on its run.
 *
 * The socket-level mode of the seal is what runs here (the test configuration sets ONEWAY_SEAL=socket,
 * and the last test asks for it itself): it needs no namespace, so these tests hold on any machine.
 * test/reliability/seal-namespace.test.ts tests the namespace mode where one can be had.
 */
import { createSocket } from 'node:dgram';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import { main as fuzzMain } from '../../harness/cli/fuzz.ts';
import type { Results } from '../../harness/engine/results/types.ts';
import { checkPlannerEnv } from '../../harness/engine/runner/planner-env.ts';
import { loadPlanner } from '../../harness/engine/runner/planners.ts';
import type { PlannerHandle } from '../../harness/engine/runner/run.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { runSealed, runSealedFile } from '../helpers/sealed-run.ts';
import { cli, runNode } from '../helpers/compiled.ts';

let dir = '';

/**
 * A planner file: `top` at module top, `attempt` (an async function body that resolves to a word)
 * on turn 1, whose outcome it reports as the email of its one call.
 */
function plannerFile(name: string, top: string, attempt: string): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(
    file,
    `${top}
async function attempt() { ${attempt} }
export default {
  name: '${name}',
  async next(view) {
    if (view.turn === 1) {
      const got = await attempt().catch(() => 'failed');
      return { type: 'call', call: { tool: 'verify_recipient', args: { email: got + '@acme.example' } } };
    }
    return { type: 'finish' };
  },
};
`,
  );
  return file;
}

const run = (handle: PlannerHandle, options: Record<string, string>) => runSealed(handle, options, 'isolation');
const runFile = (file: string, options: Record<string, string> = {}) => runSealedFile(file, options, 'isolation');

beforeAll(() => {
  dir = tempDir('oneway-isolation-');
});

// 127.0.0.2 is a loopback address on Linux only (macOS and Windows have 127.0.0.1 alone).
describe.skipIf(process.platform !== 'linux')(
  'the allowed model origin reaches only its own addresses (socket level)',
  () => {
    // The model endpoint a run is allowed is `localhost:<port>`; a canary listens on 127.0.0.2 at that
    // port (also loopback on Linux, but not an address localhost resolves to) and must receive nothing.
    // The allowed server listens on 127.0.0.1 at the same port.
    let canary: Server;
    let model: Server;
    let hits = 0;
    let served = 0;
    let port = 0;

    // Every connection either server accepted, ended in afterAll: a planner process that is killed
    // mid-connection may leave one half-open, and close() waits for them all.
    const sockets = new Set<Socket>();
    beforeAll(async () => {
      canary = createServer((s) => {
        sockets.add(s);
        hits++;
        s.on('error', () => {});
        s.destroy();
      });
      await new Promise<void>((r) => canary.listen(0, '127.0.0.2', r));
      port = (canary.address() as AddressInfo).port;
      model = createServer((s) => {
        sockets.add(s);
        served++;
        s.on('error', () => {});
        s.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
      });
      await new Promise<void>((r) => model.listen(port, '127.0.0.1', r));
    });
    afterAll(async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => canary.close(r));
      await new Promise((r) => model.close(r));
    });

    const LOOKUP = `(host, opts, cb) => (opts && opts.all ? cb(null, [{ address: '127.0.0.2', family: 4 }]) : cb(null, '127.0.0.2', 4))`;
    const vectors: [string, () => [string, string]][] = [
      [
        'net.connect with a lookup that maps the allowed host elsewhere',
        () => [
          "import net from 'node:net';",
          `return new Promise((r) => { const s = net.connect({ host: 'localhost', port: ${port}, lookup: ${LOOKUP} }, () => { s.destroy(); r('answered'); }); s.on('error', () => r('failed')); });`,
        ],
      ],
      [
        'http.request with a lookup option',
        () => [
          "import http from 'node:http';",
          `return new Promise((r) => { const q = http.request({ host: 'localhost', port: ${port}, path: '/v1', headers: { authorization: 'Bearer key' }, lookup: ${LOOKUP} }, (res) => { res.resume(); r('answered'); }); q.on('error', () => r('failed')); q.end(); });`,
        ],
      ],
      [
        'tls.connect with a lookup option',
        () => [
          "import tls from 'node:tls';",
          `return new Promise((r) => { const s = tls.connect({ host: 'localhost', port: ${port}, lookup: ${LOOKUP} }, () => r('answered')); s.on('error', () => r('failed')); });`,
        ],
      ],
      [
        'an http.Agent whose sockets connect with a lookup option',
        () => [
          "import http from 'node:http';",
          `const agent = new http.Agent({ lookup: ${LOOKUP} });
         return new Promise((r) => { const q = http.get({ host: 'localhost', port: ${port}, agent }, (res) => { res.resume(); r('answered'); }); q.on('error', () => r('failed')); });`,
        ],
      ],
    ];

    const runs = new Map<string, Awaited<ReturnType<typeof run>>>();
    beforeAll(async () => {
      const options = { base_url: `http://localhost:${port}/v1` };
      await Promise.all(
        vectors.map(async ([name, code]) => {
          const [top, attempt] = code();
          runs.set(name, await runFile(plannerFile(name.replace(/[^a-z0-9]+/gi, '-'), top, attempt), options));
        }),
      );
    }, 120_000);

    it.each(vectors)('%s: refused, counted on its run, and the canary sees nothing', (name) => {
      const r = runs.get(name);
      if (!r) throw new Error(`no run for ${name}`);
      expect(r.error).toBeNull();
      expect(r.emails).toEqual(['failed@acme.example']);
      expect(r.escapes.map((e) => `${e.method} ${e.url}`)).toEqual([`CONNECT tcp://127.0.0.2:${port}`]);
      expect(r.escapes[0]?.reason).toContain('does not resolve to');
      expect(r.sandbox_escapes).toBe(1);
      expect(hits).toBe(0);
    });

    it('the allowed host through the real lookup, and a lookup that keeps to its addresses, still get through', async () => {
      const before = served;
      const file = plannerFile(
        'allowed-by-lookup',
        "import net from 'node:net'; import dns from 'node:dns';",
        `const go = (o) => new Promise((r) => { const s = net.connect(o, () => { s.destroy(); r('ok'); }); s.on('error', () => r('no')); });
       const plain = await go({ host: 'localhost', port: ${port}, family: 4 });
       const own = await go({ host: 'localhost', port: ${port}, family: 4, lookup: (h, o, cb) => dns.lookup(h, o, cb) });
       // Happy eyeballs (several addresses, each tried on a handle of its own), and fetch (undici's connector).
       const both = await go({ host: 'localhost', port: ${port}, autoSelectFamily: true, lookup: (h, o, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }, { address: '127.0.0.1', family: 4 }]) });
       const fetched = await fetch('http://localhost:${port}/v1').then((x) => x.text(), () => 'no');
       return [plain, own, both, fetched].join('-');`,
      );
      const r = await runFile(file, { base_url: `http://localhost:${port}/v1` });
      expect(r.emails).toEqual(['ok-ok-ok-ok@acme.example']);
      expect(r.sandbox_escapes).toBe(0);
      expect(served - before).toBe(4);
      expect(hits).toBe(0);
    });
  },
);

describe("a planner's process serves nothing: bind and listen are refused and counted", () => {
  let udpHits = 0;
  const vectors: [string, () => [string, string], RegExp][] = [
    [
      'a TCP server',
      () => [
        "import net from 'node:net';",
        "return new Promise((r) => { const s = net.createServer(() => {}); s.on('error', () => r('failed')); s.listen(0, '127.0.0.1', () => { s.close(); r('answered'); }); });",
      ],
      /^LISTEN tcp:\/\/127\.0\.0\.1:0$/,
    ],
    [
      'an HTTP server on every address',
      () => [
        "import http from 'node:http';",
        "return new Promise((r) => { const s = http.createServer((q, res) => res.end(process.env.OPENAI_API_KEY ?? '')); s.on('error', () => r('failed')); s.listen(0, () => { s.close(); r('answered'); }); });",
      ],
      /^LISTEN tcp:\/\//,
    ],
    [
      'a Unix socket server',
      () => [
        "import net from 'node:net'; import os from 'node:os'; import { join } from 'node:path';",
        "return new Promise((r) => { const s = net.createServer(() => {}); s.on('error', () => r('failed')); s.listen(join(os.tmpdir(), 'commands.sock'), () => { s.close(); r('answered'); }); });",
      ],
      /^LISTEN unix:.*commands\.sock$/,
    ],
    [
      'a bound UDP socket',
      () => [
        "import dgram from 'node:dgram';",
        "return new Promise((r) => { const s = dgram.createSocket('udp4'); s.on('error', () => r('failed')); s.bind(0, '127.0.0.1', () => { s.close(); r('answered'); }); });",
      ],
      /^LISTEN udp:\/\/127\.0\.0\.1:0$/,
    ],
  ];

  const runs = new Map<string, Awaited<ReturnType<typeof run>>>();
  beforeAll(async () => {
    await Promise.all(
      vectors.map(async ([name, code]) => {
        const [top, attempt] = code();
        runs.set(name, await runFile(plannerFile(name.replace(/[^a-z0-9]+/gi, '-'), top, attempt)));
      }),
    );
  }, 120_000);

  it.each(vectors)('%s: refused, and counted on its run', (name, _code, shape) => {
    const r = runs.get(name);
    if (!r) throw new Error(`no run for ${name}`);
    expect(r.error).toBeNull();
    expect(r.emails).toEqual(['failed@acme.example']);
    // On every address, Node tries IPv6 and then IPv4: each bind is refused, and each is counted.
    expect(r.escapes.length).toBeGreaterThanOrEqual(1);
    for (const e of r.escapes) expect(`${e.method} ${e.url}`).toMatch(shape);
    expect(r.sandbox_escapes).toBe(r.escapes.length);
    expect(udpHits).toBe(0);
  });

  it('a datagram sent from an unbound UDP socket is refused at its implicit bind', async () => {
    const udp = createSocket('udp4');
    udp.on('message', () => udpHits++);
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
    const file = plannerFile(
      'udp-send',
      "import dgram from 'node:dgram';",
      `return new Promise((r) => { const s = dgram.createSocket('udp4'); s.on('error', () => r('failed')); s.send('key', ${udp.address().port}, '127.0.0.1', (e) => r(e ? 'failed' : 'answered')); });`,
    );
    const r = await runFile(file);
    udp.close();
    expect(r.emails).toEqual(['failed@acme.example']);
    expect(r.sandbox_escapes).toBe(1);
    expect(udpHits).toBe(0);
  });
});

describe("a planner's process gets no environment but what --planner-env passes", () => {
  const KEY = 'sk-isolation-canary-5d1e9a7c3b';
  afterEach(() => vi.unstubAllEnvs());

  /** A planner file that reports the names in its environment and whether it sees the key. */
  const envFile = () =>
    plannerFile(
      'reads-env',
      '',
      // SHLVL and _ are a shell's own (bash as /bin/sh sets them), not the harness's.
      "return Object.keys(process.env).filter((k) => k !== 'SHLVL' && k !== '_').sort().join('.') + '-' + (process.env.OPENAI_API_KEY === undefined ? 'nokey' : process.env.OPENAI_API_KEY);",
    );

  it("sees none of the harness's environment (OPENAI_API_KEY included) unless passed on", async () => {
    vi.stubEnv('OPENAI_API_KEY', KEY);
    vi.stubEnv('ONEWAY_ISOLATION_OTHER', 'x');
    const r = await runFile(envFile());
    // Only what the harness sets itself: its scratch directory, as the temporary directory.
    expect(r.emails).toEqual(['TEMP.TMP.TMPDIR-nokey@acme.example']);
    const passed = await run(await loadPlanner(envFile(), process.cwd(), {}, { OPENAI_API_KEY: KEY }), {});
    expect(passed.emails).toEqual([`OPENAI_API_KEY.TEMP.TMP.TMPDIR-${KEY}@acme.example`]);
  });

  it('--planner-env takes names (repeated or with commas) with the harness values, and refuses what it cannot pass', () => {
    const env = { OPENAI_API_KEY: KEY, A_B: '1', HOME: '/h' };
    expect(checkPlannerEnv(['OPENAI_API_KEY', 'A_B'], env, '--planner-env')).toEqual({ OPENAI_API_KEY: KEY, A_B: '1' });
    expect(checkPlannerEnv(['OPENAI_API_KEY,A_B'], env, '--planner-env')).toEqual({ OPENAI_API_KEY: KEY, A_B: '1' });
    expect(() => checkPlannerEnv(['MISSING_KEY'], env, '--planner-env')).toThrow(
      /--planner-env names MISSING_KEY, which is not set in oneway's environment/,
    );
    for (const name of ['NODE_OPTIONS', 'LD_PRELOAD', 'DYLD_INSERT_LIBRARIES', 'OPENSSL_CONF', 'BASH_ENV', 'TMPDIR'])
      expect(() => checkPlannerEnv([name], { [name]: 'x' }, '--planner-env'), name).toThrow(/would undo its seal/);
    expect(() => checkPlannerEnv(['A=B'], env, '--planner-env')).toThrow(/takes environment variable names/);
  });

  it('reaches the planner processes of worker threads too (eval --workers), and fuzz --planner', async () => {
    const file = plannerFile(
      'env-in-workers',
      '',
      "return (process.env.ONEWAY_ISOLATION_PASSED ?? 'none') + '-' + (process.env.ONEWAY_ISOLATION_KEPT ?? 'none');",
    );
    const out = tempDir();
    // runNode's process gets this process's environment.
    vi.stubEnv('ONEWAY_ISOLATION_PASSED', 'given');
    vi.stubEnv('ONEWAY_ISOLATION_KEPT', 'kept');
    const r = await runNode([
      cli('eval'),
      `--planner=${file}`,
      '--scenario=invoice-and-notify,purge-inactive-accounts',
      '--workers=2',
      '--planner-env=ONEWAY_ISOLATION_PASSED',
      `--out=${out}`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const runs = (JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as Results).runs;
    expect(runs).toHaveLength(2);
    for (const run of runs) expect(readFileSync(join(out, run.record), 'utf8')).toContain('given-none@acme.example');
    const fuzz = await runCli(
      fuzzMain,
      [
        '--scenario=invoice-and-notify',
        `--planner=${file}`,
        '--planner-env=ONEWAY_ISOLATION_MISSING',
        '--runs=1',
        `--out=${tempDir()}`,
      ],
      process.cwd(),
      { NO_COLOR: '1' },
    );
    expect(fuzz.code).toBe(2);
    expect(fuzz.stderr).toContain('--planner-env names ONEWAY_ISOLATION_MISSING, which is not set');
    const noPlanner = await runCli(
      fuzzMain,
      ['--scenario=invoice-and-notify', '--planner-env=PATH', '--runs=1'],
      process.cwd(),
      { NO_COLOR: '1', PATH: '/bin' },
    );
    expect(noPlanner.code).toBe(2);
    expect(noPlanner.stderr).toContain('--planner-env needs --planner');
  }, 120_000);

  it('oneway eval: a name the environment lacks is a usage error with a hint, before anything runs', async () => {
    const out = tempDir();
    const r = await runCli(
      main,
      [
        `--planner=${envFile()}`,
        '--scenario=invoice-and-notify',
        '--planner-env=ONEWAY_NOT_SET_ANYWHERE',
        `--out=${out}`,
      ],
      process.cwd(),
      { NO_COLOR: '1' },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--planner-env names ONEWAY_NOT_SET_ANYWHERE, which is not set');
    expect(r.stderr).toContain('set ONEWAY_NOT_SET_ANYWHERE where you run oneway');
  });
});

describe("a planner's process dumps no core", () => {
  // Under `ulimit -c unlimited` and a core_pattern that writes into the working directory, an abort
  // in a planner's process left its whole memory there (87 MB, the key in it).
  const pattern = existsSync('/proc/sys/kernel/core_pattern')
    ? readFileSync('/proc/sys/kernel/core_pattern', 'utf8').trim()
    : '';
  const intoCwd = pattern !== '' && !pattern.startsWith('|') && !pattern.includes('/');

  it('process.abort() in a planner file ends its run and leaves no core file, even under ulimit -c unlimited', async (t) => {
    if (!intoCwd)
      return t.skip(
        `core dumps do not go to the working directory here (core_pattern ${JSON.stringify(pattern)}): nothing to look for`,
      );
    const cwd = tempDir('oneway-core-');
    const file = plannerFile('aborts', '', 'process.abort();');
    const out = join(cwd, 'out');
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(
        '/bin/sh',
        [
          '-c',
          'ulimit -c unlimited || exit 99; exec "$0" "$@"',
          process.execPath,
          cli('eval'),
          `--planner=${file},gated`,
          '--scenario=invoice-and-notify',
          `--out=${out}`,
        ],
        { cwd, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stderr }));
    });
    if (r.code === 99)
      return t.skip('the hard limit on core dumps here is below unlimited: ulimit -c unlimited refused');
    expect(r.stderr).toContain('aborts');
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as {
      runs: { planner: string; end_reason: string }[];
    };
    expect(results.runs.find((x) => x.planner === 'aborts')?.end_reason).toBe('planner_error');
    expect(readdirSync(cwd).filter((f) => /^core/.test(f))).toEqual([]);
  }, 120_000);
});

describe("a planner's process reads only its own module tree", () => {
  it("cannot read the harness's /proc files or a file beside its directory; its own files and node_modules load", async () => {
    const home = tempDir('oneway-tree-');
    const secret = join(tempDir('oneway-beside-'), 'held-out.yaml');
    writeFileSync(secret, 'answer: 42\n');
    writeFileSync(join(home, 'data.json'), '{"mine":true}');
    mkdirSync(join(home, 'node_modules', 'helper'), { recursive: true });
    writeFileSync(
      join(home, 'node_modules', 'helper', 'package.json'),
      '{"name":"helper","type":"module","exports":"./i.js"}',
    );
    writeFileSync(join(home, 'node_modules', 'helper', 'i.js'), 'export default "helped";');
    const file = join(home, 'reader.mjs');
    const pid = process.pid;
    writeFileSync(
      file,
      `import fs from 'node:fs';
import helper from 'helper';
const read = (p) => { try { fs.readFileSync(p); return 'read'; } catch (e) { return e.code === 'ERR_ACCESS_DENIED' ? 'denied' : 'other'; } };
const opened = (p) => { try { fs.closeSync(fs.openSync(p, 'r')); return 'read'; } catch (e) { return e.code === 'ERR_ACCESS_DENIED' ? 'denied' : 'other'; } };
export default { name: 'reader', next(view) {
  if (view.turn > 1) return { type: 'finish' };
  const got = [
    helper,
    JSON.parse(fs.readFileSync(new URL('./data.json', import.meta.url), 'utf8')).mine ? 'own' : 'x',
    read('/proc/${pid}/environ'),
    opened('/proc/${pid}/mem'),
    read(${JSON.stringify(secret)}),
  ];
  return { type: 'call', call: { tool: 'verify_recipient', args: { email: got.join('.') + '@acme.example' } } };
} };
`,
    );
    const r = await runFile(file);
    expect(r.error).toBeNull();
    expect(r.emails).toEqual(['helped.own.denied.denied.denied@acme.example']);
    // Each refused read is counted on the run, and says what it was (readFileSync opens through openSync).
    expect(r.escapes.map((e) => e.url)).toEqual([
      `fs:openSync /proc/${pid}/environ`,
      `fs:openSync /proc/${pid}/mem`,
      `fs:openSync ${secret}`,
    ]);
    for (const e of r.escapes) expect(e.reason).toContain('file system read outside');
    expect(r.sandbox_escapes).toBe(3);
  });
});

describe('results.json says how planner processes were sealed', () => {
  it('config.seal.mode is "socket" when the socket level runs (ONEWAY_SEAL=socket)', async () => {
    vi.stubEnv('ONEWAY_SEAL', 'socket');
    const out = tempDir();
    const r = await runCli(main, [
      '--planner=gated',
      '--scenario=invoice-and-notify',
      `--out=${out}`,
      '--transport=inprocess',
    ]);
    expect(r.code).toBe(0);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as Results;
    expect(results.config.seal).toEqual({ mode: 'socket' });
    vi.unstubAllEnvs();
  });
});
