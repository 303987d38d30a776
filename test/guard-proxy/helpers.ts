/**
 * Test helpers for `oneway guard`: the real reference servers (started with node on their bin
 * files from node_modules), the guard in process (its proxy, with the SDK client as the agent over
 * an in-memory transport) or as the `oneway guard` command (a child process the SDK client starts
 * over stdio), and the journal as a parsed record.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, watch, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach } from 'vitest';
import { REPO_ROOT } from '../../harness/cli/common.ts';
import type { CallEvent, RecordEvent } from '../../harness/core/record.ts';
import { DEFAULT_POLICY, type Policy } from '../../harness/engine/guard/policy.ts';
import { parseRecordText, type ParsedRecord } from '../../harness/engine/record/reader.ts';
import { Journal, type JournalWriter } from '../../harness/features/guard-proxy/journal.ts';
import { GuardProxy, journalStart } from '../../harness/features/guard-proxy/proxy.ts';
import { loadGuardTools } from '../../harness/features/guard-proxy/tools-file.ts';
import { Upstream, type UpstreamTarget } from '../../harness/features/guard-proxy/upstream.ts';
import type { Scenario } from '../../harness/core/scenario.ts';
import { tempDir } from '../helpers/cli.ts';
import { cli } from '../helpers/compiled.ts';
import { when } from '../mcp/helpers.ts';

const require = createRequire(import.meta.url);

/** The bin file of an installed package, from its package.json (`bin`). */
function binOf(manifest: string): string {
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(manifest), Object.values(bin)[0] as string);
}

export const MEMORY_SERVER = binOf(require.resolve('@modelcontextprotocol/server-memory/package.json'));
export const FILESYSTEM_SERVER = binOf(require.resolve('@modelcontextprotocol/server-filesystem/package.json'));
export const MISBEHAVING_SERVER = resolve(REPO_ROOT, 'test/guard-proxy/fixtures/misbehaving-server.mjs');
export const MEMORY_TOOLS = resolve(REPO_ROOT, 'examples/guard/memory-tools.yaml');
export const FILESYSTEM_TOOLS = resolve(REPO_ROOT, 'test/guard-proxy/fixtures/filesystem-tools.yaml');
export const MISBEHAVING_TOOLS = resolve(REPO_ROOT, 'test/guard-proxy/fixtures/misbehaving-tools.yaml');

/** The declarations of a tools file that must load. */
export function toolsAt(file: string): Scenario {
  const r = loadGuardTools(file);
  if (!r.ok) throw new Error(`tools file does not load: ${r.problems.map((p) => p.message).join('; ')}`);
  return r.value.scenario;
}

/** A real server started with node on its bin file (the environment of this process, plus `env`). */
export const nodeServer = (bin: string, args: string[] = [], env: Record<string, string> = {}): UpstreamTarget => ({
  command: process.execPath,
  args: [bin, ...args],
  env: { ...(process.env as Record<string, string>), ...env },
});

export interface InProcessGuard {
  proxy: GuardProxy;
  client: Client;
  journal: Journal;
  upstream: Upstream;
  log: string[];
  /** A second client session on the same guard. */
  session(capabilities?: ConstructorParameters<typeof Client>[1]): Promise<Client>;
  close(): Promise<void>;
}

export interface GuardSetup {
  tools: Scenario;
  toolsFile?: string;
  target: UpstreamTarget;
  journal: string;
  policy?: Policy;
  facts?: string[];
  approveCmd?: string;
  /** The call timeout; a function is asked again for each call the guard forwards. */
  callTimeoutMs?: number | (() => number);
  batchWindowMs?: number;
  /** The client's capabilities (elicitation, ...). */
  clientOptions?: ConstructorParameters<typeof Client>[1];
  /** How the journal writes its lines (a disk that fills up). */
  writer?: JournalWriter;
  /** `--observe`: forward every call, journal what the policy would have decided. */
  observe?: boolean;
}

/** The guard's proxy in this process, in front of `target`, with an SDK client connected to one session. */
export async function guardInProcess(setup: GuardSetup): Promise<InProcessGuard> {
  const log: string[] = [];
  const upstream = new Upstream(setup.target, (m) => log.push(m));
  const policy = setup.policy ?? DEFAULT_POLICY;
  const journal = Journal.open(
    setup.journal,
    journalStart({
      scenario: setup.tools,
      toolsFile: setup.toolsFile ?? 'tools.yaml',
      facts: setup.facts ?? [],
      policy,
      upstream: upstream.where,
      observe: setup.observe,
    }),
    { command: 'test', warn: (m) => log.push(m), ...(setup.writer ? { writer: setup.writer } : {}) },
  );
  const proxy = new GuardProxy({
    scenario: setup.tools,
    policy,
    upstream,
    journal,
    approveCmd: setup.approveCmd,
    approvalTimeoutMs: 60_000,
    // A getter: the proxy reads its options at each call it forwards.
    get callTimeoutMs() {
      const timeout = setup.callTimeoutMs ?? 60_000;
      return typeof timeout === 'function' ? timeout() : timeout;
    },
    batchWindowMs: setup.batchWindowMs ?? 20,
    log: (m) => log.push(m),
    observe: setup.observe,
  });
  await proxy.start();
  const clients: Client[] = [];
  const session = async (capabilities = setup.clientOptions) => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await proxy.session().server.connect(serverSide);
    const client = new Client({ name: 'agent', version: '1.0.0' }, capabilities);
    await client.connect(clientSide);
    clients.push(client);
    return client;
  };
  const client = await session();
  let closed: Promise<void> | undefined;
  return {
    proxy,
    client,
    journal,
    upstream,
    log,
    session,
    close() {
      closed ??= (async () => {
        for (const c of clients) await c.close();
        await proxy.settle();
        journal.close();
        await upstream.close();
      })();
      return closed;
    },
  };
}

/**
 * Starts guards in process (`guardInProcess`) for the tests of a file, each closed after the test
 * that started it (a test may close one itself first, and start another).
 *
 * @example
 * const startGuard = useGuard();
 * it('...', async () => {
 *   const guard = await startGuard({ tools, target, journal });
 * });
 */
export function useGuard(): (setup: GuardSetup) => Promise<InProcessGuard> {
  const started: InProcessGuard[] = [];
  afterEach(async () => {
    for (const guard of started.splice(0)) await guard.close();
  });
  return async (setup) => {
    const guard = await guardInProcess(setup);
    started.push(guard);
    return guard;
  };
}

/**
 * `oneway guard ARGS` as a child process (the compiled CLI, as `npx oneway` runs it: half the start
 * of tsx), with the SDK client connected to it over stdio.
 */
export async function guardCommand(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ client: Client; transport: StdioClientTransport; stderr(): string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli('oneway'), 'guard', ...args],
    env: { ...(process.env as Record<string, string>), ...env },
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += String(d)));
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => err };
}

/** A journal file as the record recover reads. */
function journalAt(path: string): ParsedRecord {
  const r = parseRecordText(readFileSync(path, 'utf8'), path);
  if (!r.ok) throw new Error(`not a record: ${r.issues.map((i) => i.message).join('; ')}`);
  return r.value;
}

/** The journal's call events (outcomes), in order. */
export const outcomes = (path: string): CallEvent[] =>
  journalAt(path).events.filter((e): e is CallEvent => e.type === 'call');

/** The journal's events of one type. */
export const eventsOf = <T extends RecordEvent['type']>(path: string, type: T) =>
  journalAt(path).events.filter((e): e is Extract<RecordEvent, { type: T }> => e.type === type);

/** The text of a tool result. */
export const textOf = (r: unknown): string =>
  ((r as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/**
 * Resolves once `check()` returns a value, checking now and whenever the file at `path` changes:
 * waits on the file's events, never on a clock.
 */
export function whenFile<T>(path: string, check: () => T | undefined): Promise<T> {
  return new Promise((resolveValue) => {
    const attempt = () => {
      let v: T | undefined;
      try {
        v = check();
      } catch {
        v = undefined;
      }
      if (v === undefined) return false;
      watcher.close();
      resolveValue(v);
      return true;
    };
    const watcher = watch(dirname(path), () => void attempt());
    attempt();
  });
}

/**
 * The compiled `oneway guard --listen=0` in front of server-filesystem, which serves a fresh
 * directory `files` holding `a` (a.txt, "alpha"); `url` once the guard says where it serves. The
 * caller ends it (`child.kill`) and reads its exit from `exited`, its stderr from `stderr()`.
 */
export async function listeningFilesystemGuard(prefix: string) {
  const dir = realpathSync(tempDir(prefix));
  const files = join(dir, 'files');
  mkdirSync(files);
  const a = join(files, 'a.txt');
  writeFileSync(a, 'alpha');
  const journal = join(dir, 'journal.jsonl');
  const child = spawn(
    process.execPath,
    [
      cli('oneway'),
      'guard',
      `--tools=${FILESYSTEM_TOOLS}`,
      `--journal=${journal}`,
      '--listen=0',
      `--server-cmd="${process.execPath}" "${FILESYSTEM_SERVER}" "${files}"`,
    ],
    { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += String(d)));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    const url = await when(child.stderr, 'data', () => /serving at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err)?.[1]);
    return { dir, files, a, journal, child, exited, url, stderr: () => err };
  } catch (e) {
    child.kill('SIGTERM');
    throw e;
  }
}
