/**
 * What `oneway guard` adds to a call, measured in one run: the same server
 * (@modelcontextprotocol/server-memory, started with node on its bin file) asked
 * directly over stdio and through `oneway guard` over stdio (a process of its
 * own, as an MCP client runs it), in alternating rounds so that both see the
 * same machine. Read-only calls (read_graph: auto under the default policy,
 * journaled as intent and outcome like every call) show the guard's hop; a
 * write (create_entities of the same entity, which the server rewrites its file
 * for each time) shows it with an effect and a compensation to journal; and the
 * journal's own cost, two lines written through per call, is timed alone.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallEvent, IntentEvent } from '../../core/record.ts';
import { DEFAULT_POLICY } from '../../engine/guard/policy.ts';
import { Journal } from '../guard-proxy/journal.ts';
import { journalStart } from '../guard-proxy/proxy.ts';
import { loadGuardTools } from '../guard-proxy/tools-file.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { median, round } from './stats.ts';

/** Microseconds per call, directly and through the guard, and what the guard adds (medians of the rounds). */
interface GuardCallCost {
  direct_us: number;
  guard_us: number;
  added_us: number;
}

interface GuardRow {
  server: string;
  rounds: number;
  calls_per_round: number;
  read_only: GuardCallCost;
  write: GuardCallCost;
  /** Writing one call's intent and outcome through to the journal, alone (µs per call). */
  journal_us_per_call: number;
}

export type GuardBench = GuardRow | { skipped: string };

const MEMORY = '@modelcontextprotocol/server-memory';

/** The server-memory bin, when it is installed (a devDependency of oneway: in a clone). */
function memoryServer(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve(`${MEMORY}/package.json`);
    const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
    return join(dirname(manifest), Object.values(bin)[0] as string);
  } catch {
    return undefined;
  }
}

/** How to start `oneway guard`: the compiled command next to this module, or the source one through tsx. */
function guardEntry(): string[] {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts')
    ? ['--import', 'tsx', join(dirname(here), '../../cli/oneway.ts')]
    : [join(dirname(here), '../../cli/oneway.js')];
}

async function connect(command: string, args: string[], env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'oneway-bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command,
      args,
      env: { ...(process.env as Record<string, string>), ...env },
      stderr: 'ignore',
    }),
  );
  return client;
}

/** Microseconds per call of `n` calls in turn. */
async function perCall(n: number, call: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await call();
  return ((performance.now() - t0) * 1000) / n;
}

/**
 * The guard's cost per call (see the module comment): `rounds` alternating rounds of `calls` calls each.
 *
 * @example
 * const row = await guardOverhead('reports/runs/guard');
 */
export async function guardOverhead(outDir: string, rounds = 9, calls = 200): Promise<GuardBench> {
  const server = memoryServer();
  if (!server) return { skipped: `${MEMORY} is not installed (a devDependency of oneway: run the bench in a clone)` };
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const tools = join(PACKAGE_ROOT, 'examples/guard/memory-tools.yaml');
  const direct = await connect(process.execPath, [server], { MEMORY_FILE_PATH: join(outDir, 'direct.jsonl') });
  const guarded = await connect(
    process.execPath,
    [
      ...guardEntry(),
      'guard',
      `--tools=${tools}`,
      `--journal=${join(outDir, 'journal.jsonl')}`,
      '--',
      process.execPath,
      server,
    ],
    { MEMORY_FILE_PATH: join(outDir, 'guarded.jsonl') },
  );
  try {
    const read = { name: 'read_graph', arguments: {} };
    const write = {
      name: 'create_entities',
      arguments: { entities: [{ name: 'bench', entityType: 'thing', observations: ['measured'] }] },
    };
    const samples = {
      readDirect: [] as number[],
      readGuard: [] as number[],
      writeDirect: [] as number[],
      writeGuard: [] as number[],
    };
    // Warm both paths (JIT, the server's file cache) before anything counts.
    for (const c of [direct, guarded]) {
      await perCall(calls, () => c.callTool(read));
      await perCall(20, () => c.callTool(write));
    }
    for (let r = 0; r < rounds; r++) {
      // Alternate which goes first, so that neither always follows the other.
      const order = r % 2 === 0 ? [direct, guarded] : [guarded, direct];
      for (const c of order) {
        const us = await perCall(calls, () => c.callTool(read));
        (c === direct ? samples.readDirect : samples.readGuard).push(us);
      }
      for (const c of order) {
        const us = await perCall(Math.max(10, calls >> 2), () => c.callTool(write));
        (c === direct ? samples.writeDirect : samples.writeGuard).push(us);
      }
    }
    const cost = (d: number[], g: number[]): GuardCallCost => ({
      direct_us: round(median(d)),
      guard_us: round(median(g)),
      added_us: round(median(g) - median(d)),
    });
    return {
      server: MEMORY,
      rounds,
      calls_per_round: calls,
      read_only: cost(samples.readDirect, samples.readGuard),
      write: cost(samples.writeDirect, samples.writeGuard),
      journal_us_per_call: round(journalCost(join(outDir, 'journal-alone.jsonl'), tools)),
    };
  } finally {
    await direct.close();
    await guarded.close();
  }
}

/** Microseconds to journal one call (its intent, synced to the disk, and its outcome), in this process. */
function journalCost(path: string, toolsFile: string): number {
  const tools = loadGuardTools(toolsFile);
  if (!tools.ok) throw new Error(`internal: ${toolsFile} does not load`);
  const journal = Journal.open(
    path,
    journalStart({ scenario: tools.value.scenario, toolsFile, facts: [], policy: DEFAULT_POLICY, upstream: 'bench' }),
    { command: 'oneway bench' },
  );
  const args = { entities: [{ name: 'bench', entityType: 'thing', observations: ['measured'] }] };
  const intent: IntentEvent = {
    type: 'intent',
    step: 1,
    turn: 1,
    batch: 1,
    pos: 0,
    batch_size: 1,
    t_ms: 0,
    tool: 'create_entities',
    args,
    class: 'reversible',
    read_only: false,
    kind: 'action',
    preconditions: { held: [], missing: [] },
    establishes: ['entities_created(names=*)'],
    session: 'bench',
  };
  const { type: _type, session: _session, ...head } = intent;
  const outcome: CallEvent = {
    type: 'call',
    ...head,
    latency_ms: 1,
    status: 'ok',
    http_status: null,
    applied: true,
    ambiguous: false,
    result: args,
    error: null,
    effect_id: 'eff-1',
    effects: [{ kind: 'establish', fact: 'entities_created(names="[\\"bench\\"]")', was_new: true }],
    compensation: { operation: 'delete_entities', args: { entityNames: ['bench'] }, requires_approval: false },
    session: 'bench',
  };
  try {
    for (let i = 0; i < 200; i++) {
      journal.write(intent);
      journal.write(outcome);
    }
    const n = 2000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      journal.write(intent);
      journal.write(outcome);
    }
    return ((performance.now() - t0) * 1000) / n;
  } finally {
    journal.close();
  }
}
