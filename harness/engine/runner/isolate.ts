/**
 * Planner files run in sealed processes of their own (runner/sealed-process.ts), never in the
 * evaluation's process.
 *
 * A planner module loaded from a file (`--planner=./mine.ts`) is someone else's code: a throw
 * from its timer, an interval it leaves behind, a loop that never yields, a signal it sends, memory
 * it allocates, a message it garbles must end only its own run. Its code runs in a process sealed
 * from its first line, which imports the module and answers one decision at a time; the runner
 * keeps the sandbox, the transport, the guard and the clock here. So:
 *
 * - an uncaught exception or unhandled rejection in the planner's process, its exit (with any code,
 *   `process.exit(0)` included), a crash or running out of memory ends the run with
 *   `planner_error`; the evaluation goes on;
 * - a message that is not what the runner asked for ends the run with `planner_error` and counts as
 *   a sandbox escape (so does a channel it closes or replaces);
 * - a decision that takes longer than `--decision-timeout` (a synchronous endless loop included)
 *   ends the run with `decision_timeout`, and the process group is killed;
 * - when a run ends, its process serves the next run of the same planner only if nothing of the
 *   run is pending there (no timer, interval, immediate, socket or other handle); otherwise it is
 *   killed with whatever it left running. Starting one costs tens of milliseconds, so a
 *   well-behaved planner keeps one process per run in flight;
 * - planner code cannot see the runner's requests, tokens or sandbox at all, nor signal, write into
 *   or inspect the harness.
 *
 * Loading a file to learn its planner's name happens in such a process too (`probePlanner`), so a
 * module's top-level code never runs in the evaluation's process. Given the planner options the runs
 * will have, that process is started with the origins a run's would be allowed and then serves the
 * planner's first run as a run's own process would (a process start saved per planner file): what
 * its top level reached is charged to that run too, as if the run's process had just imported the
 * module. Without them it is allowed no origin, and ended once loaded.
 */
import { AsyncResource } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { UsageError, type Result } from '../../core/errors.ts';
import { cutText } from '../../util/cut-text.ts';
import type { Decision, Planner, PlannerContext, PlannerView } from '../../core/planner.ts';
import type { Checkpoint, EndReason } from '../../core/record.ts';
import socketSeal from '../sandbox/socket-seal.cjs';
import type { Escape } from '../sandbox/seal.ts';
import { locatedLoadError } from '../io/syntax-error.ts';
import { bundledForProcess, importsTypeScript, moduleForProcess } from '../io/ts-loader.ts';
import { llmCacheOf, type LlmCache } from './carried-cache.ts';
import { moduleTree, SealedProcess, unattributed, type Carried, type SealedInit } from './sealed-process.ts';
import { viewEncoder, type ViewDelta } from './view-delta.mjs';

const HOSTED = Symbol('oneway.hosted-planner');

/** How long loading a planner module may take (a module that never finishes loading is a usage error). */
const LOAD_TIMEOUT_MS = 60_000;
/** The least time a run's planner process is given to start, whatever the decision timeout. */
const START_FLOOR_MS = 30_000;
/** An idle planner process nobody took for this long is ended. */
const IDLE_MS = 10_000;

type Usage = ReturnType<NonNullable<Planner['usage']>>;

/** A planner file, as the runner loads it. */
export interface HostInit {
  file: string;
  spec: string;
  fallbackName: string;
}

/**
 * What the runner asks a planner process. A view goes as what changed since the process last saw
 * one (view-delta.mjs).
 */
type HostRequest =
  { t: 'create'; ctx: Omit<PlannerContext, 'reject' | 'deny'> } | { t: 'next'; view: ViewDelta } | { t: 'end' };

const usage = z.object({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  requests: z.number().optional(),
  retries: z.number().optional(),
  estimated_cost_usd: z.number().nullable().optional(),
});
const errorShape = z.object({
  name: z.string().optional(),
  message: z.string().optional(),
  value: z.string().optional(),
  stack: z.string().optional(),
});

/** Everything a planner process may say (but escapes, which sealed-process.ts reads). */
const hostMessage = z.discriminatedUnion('t', [
  z.object({
    t: z.literal('loaded'),
    name: z.string().min(1).max(200),
    checkpoint: z.enum(['initial', 'batch', 'batch+intents']).optional(),
    cpuBound: z.literal(true).optional(),
  }),
  z.object({ t: z.literal('failed'), message: z.string(), hint: z.string().optional() }),
  z.object({ t: z.literal('ready'), usage: usage.optional() }),
  z.object({ t: z.literal('decision'), value: z.unknown(), usage: usage.optional() }),
  z.object({ t: z.literal('threw'), error: errorShape }),
  z.object({ t: z.literal('ended'), clean: z.boolean() }),
  z.object({ t: z.literal('dirty') }),
  z.object({
    t: z.literal('reject'),
    attempt: z.object({ tool: z.string(), args: z.unknown(), reason: z.string() }),
  }),
]);
type HostMessage = z.infer<typeof hostMessage>;

export interface HostedPlanner {
  /** Gets the run a process; resolves with how the run ends when it cannot start. */
  start(decisionTimeoutMs: number): Promise<[EndReason, string] | undefined>;
  /** Ends the run's hold on its process (idempotent). */
  close(): void;
}

/** The process behind a planner, when it runs in one. */
export function hostOf(planner: Planner | undefined): HostedPlanner | undefined {
  return (planner as (Planner & { [HOSTED]?: HostedPlanner }) | undefined)?.[HOSTED];
}

/**
 * The model endpoint a planner's options configure (`base_url`, else `OPENAI_BASE_URL`, else
 * OpenAI's), which an LLM planner loaded from a file may reach; none for a replay.
 */
function modelOrigins(options: Record<string, string>, env: NodeJS.ProcessEnv): Origin[] {
  if (options.llm_cache === 'replay') return [];
  try {
    const u = new URL(options.base_url ?? env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1');
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return [];
    return [{ host: u.hostname, port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)) }];
  } catch {
    return [];
  }
}

/**
 * The same endpoint as a URL origin (`https://api.openai.com`): whose requests the harness carries
 * in namespace mode (in a replay too: answered from the LLM cache, with no request made).
 */
function modelUrls(options: Record<string, string> | undefined, env: NodeJS.ProcessEnv): string[] {
  if (!options) return [];
  try {
    const u = new URL(options.base_url ?? env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1');
    return u.protocol === 'http:' || u.protocol === 'https:' ? [u.origin] : [];
  } catch {
    return [];
  }
}

/** Planner options without the LLM cache's (`llm_cache`, `llm_cache_dir`). */
function withoutLlmCache(options: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(options ?? {}).filter(([k]) => k !== 'llm_cache' && k !== 'llm_cache_dir'));
}

/**
 * The most of a planner's stack trace the harness keeps: one is kept for every run whose planner
 * threw, until the evaluation ends (for `--verbose`), and a planner's process may send one as long
 * as its channel's longest line.
 */
const MAX_STACK = 16 * 1024;

/** An error from the planner's process, as the runner reports it (`planner threw: ...`). */
function thrown(error: z.infer<typeof errorShape>): unknown {
  if (error.value !== undefined) return error.value;
  const e = new Error(error.message ?? 'unknown error');
  if (error.name) e.name = error.name;
  // The planner's own stack (its process's), for `oneway eval --verbose`.
  if (error.stack)
    e.stack = cutText(error.stack, MAX_STACK, `\n    ... (${error.stack.length} characters, cut at ${MAX_STACK})`);
  return e;
}

/** Escapes charged in `scope` (a run's: to that run while it lasts, then unattributed). */
const chargeIn = (scope: AsyncResource) => (e: Escape) => scope.runInAsyncScope(() => socketSeal.report(e));

type Origin = { host: string; port: number };

/** The origins a run's process is allowed: the seal's own, and the model endpoint its planner options name. */
const runOrigins = (options: Record<string, string>): Origin[] => [
  ...socketSeal.allowed(),
  ...modelOrigins(options, process.env),
];

type PlannerProcess = SealedProcess<HostMessage>;

/**
 * The process that loaded a planner module, kept for its first run: the origins it was allowed,
 * the escapes it made while loading (reported unattributed then, and charged to that run too), and
 * those it made since (`later`: the run's, or unattributed if no run takes the process). `sink` is
 * where its escapes go while nobody holds it.
 */
interface Loaded {
  p: PlannerProcess;
  allow: Origin[];
  escapes: Escape[];
  later: Escape[];
  sink: { to: (e: Escape) => void };
  timer: NodeJS.Timeout;
}

/** Ends a loading process no run took: what it reached since it loaded is unattributed. */
function endUnused(l: Pick<Loaded, 'p' | 'later'>): void {
  l.p.kill();
  for (const e of l.later.splice(0)) unattributed(e);
}

/** A process for a run: new, or back from its last run, whose end it has not been told yet (`ending`: that run's scope). */
interface Leased {
  p: PlannerProcess;
  ending?: AsyncResource;
}

/**
 * The processes of one planner file: idle ones serve the next run. A run that ended with every
 * request answered leaves its process here untold; the next run's `create` tells it (`end: true`),
 * and the process says first whether the run left anything pending (`ended`): a process that did
 * is killed, and the run starts again on a new one.
 */
export class PlannerPool {
  private readonly idle: { p: PlannerProcess; ending: AsyncResource; timer: NodeJS.Timeout }[] = [];
  /** The process that loaded the module to learn its name, kept for the first run (see keepLoaded). */
  private loaded: Loaded | undefined;

  constructor(
    readonly init: SealedInit,
    private readonly dir: string,
    private readonly nodeFlags: string[],
    /** What its processes may read (the planner file's module tree, its compiled module's directory). */
    private readonly read: readonly string[],
    /** Its processes' whole environment (`--planner-env`). */
    private readonly env: Readonly<Record<string, string>> = {},
  ) {}

  /** A new process for this planner file (not yet loaded); escapes it makes while nobody holds it go to `stray`. */
  spawn(allow: Origin[], stray?: (e: Escape) => void, model: string[] = [], cache?: LlmCache): PlannerProcess {
    return new SealedProcess(
      {
        init: this.init,
        dir: this.dir,
        allow,
        model,
        ...(cache ? { cache } : {}),
        nodeFlags: this.nodeFlags,
        env: this.env,
        read: this.read,
      },
      hostMessage,
      stray,
    );
  }

  /**
   * Keeps the process that loaded the module (`loading`: what it reached while it did, reported
   * unattributed already) for the first run whose allowed origins are `allow`, up to IDLE_MS.
   */
  keepLoaded(loading: Omit<Loaded, 'timer'>): void {
    loading.p.unref();
    const timer = setTimeout(() => this.dropLoaded(), IDLE_MS);
    timer.unref();
    this.loaded = { ...loading, timer };
  }

  /** Ends the kept loading process, unused. */
  private dropLoaded(): void {
    const kept = this.takeLoaded();
    if (kept) endUnused(kept);
  }

  /** The kept loading process, no longer kept. */
  private takeLoaded(): Loaded | undefined {
    const kept = this.loaded;
    this.loaded = undefined;
    if (kept) clearTimeout(kept.timer);
    return kept;
  }

  /** A loaded process for a run (one back from its last run first, unless `fresh`). */
  async acquire(scope: AsyncResource, options: Record<string, string>, fresh = false): Promise<Leased> {
    for (let back = fresh ? undefined : this.idle.pop(); back; back = this.idle.pop()) {
      clearTimeout(back.timer);
      if (back.p.dead) continue;
      back.p.ref();
      return { p: back.p, ending: back.ending };
    }
    const allow = runOrigins(options);
    const kept = this.takeLoaded();
    const cache = llmCacheOf(options);
    if (kept && !kept.p.dead && JSON.stringify([kept.allow, kept.p.cache]) === JSON.stringify([allow, cache])) {
      // This run's process, as if it had just imported the module: what that did is the run's.
      const charge = chargeIn(scope);
      for (const e of [...kept.escapes, ...kept.later.splice(0)]) charge(e);
      kept.sink.to = unattributed;
      kept.p.ref();
      return { p: kept.p };
    }
    if (kept) endUnused(kept);
    const p = this.spawn(allow, undefined, modelUrls(options, process.env), cache);
    const m = await p.request(undefined, { escape: chargeIn(scope) });
    if (m.t === 'loaded') return { p };
    p.kill();
    throw new Error(m.t === 'failed' ? m.message : `the planner's process said ${m.t} before it loaded`);
  }

  /**
   * A run is over: a process with every request answered waits for the next run (what it does
   * meanwhile is charged in `scope`, the ended run's: unattributed); one still busy is killed.
   */
  release(p: PlannerProcess, reusable: boolean, scope: AsyncResource): void {
    if (!reusable || p.dead) return p.kill();
    p.unref();
    const timer = setTimeout(() => {
      const i = this.idle.findIndex((x) => x.p === p);
      if (i >= 0) this.idle.splice(i, 1);
      p.kill();
    }, IDLE_MS);
    timer.unref();
    this.idle.push({ p, ending: scope, timer });
  }
}

/** Where planner processes keep their compiled modules and scratch directories; removed at exit. */
let root: string | undefined;
function workDir(): string {
  if (!root) {
    const dir = mkdtempSync(join(tmpdir(), 'oneway-planners-'));
    root = dir;
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return mkdtempSync(join(root, 'p-'));
}

/**
 * Loads a planner module in a sealed process and returns its planner's name and the pool its runs
 * will use. A TypeScript file is compiled here first (ts-loader.ts). What the module exports is
 * checked there; a module that fails to load, exports no planner or does not finish loading within
 * `LOAD_TIMEOUT_MS` is a usage error. Attempts its top-level code makes while loading are
 * unattributed, and charged to the first run too (made in its process, or again by a run's own).
 * With the runs' planner `options`, the process is allowed their origins and kept for the first run.
 * `env` is the whole environment its processes get (`--planner-env`).
 */
export async function probePlanner(
  init: HostInit,
  timeoutMs = LOAD_TIMEOUT_MS,
  options?: Record<string, string>,
  env: Readonly<Record<string, string>> = {},
): Promise<{ name: string; checkpoint?: Checkpoint; cpuBound?: boolean; pool: PlannerPool }> {
  const dir = workDir();
  const what = `planner module ${init.spec}`;
  const pool = (compiled: { file: string; nodeFlags: string[] }) =>
    new PlannerPool(
      { kind: 'planner', file: compiled.file, spec: init.spec, what, fallbackName: init.fallbackName },
      dir,
      compiled.nodeFlags,
      [...moduleTree(init.file), dirname(compiled.file)],
      env,
    );
  let loaded = await loadIn(
    pool(await moduleForProcess(init.file, join(dir, 'module'), what)),
    what,
    timeoutMs,
    options,
  );
  // A .js/.mjs file that imports TypeScript: bundled (with its imports), as a .ts file is.
  if (!loaded.ok && importsTypeScript(loaded.error.message))
    loaded = await loadIn(
      pool(await bundledForProcess(init.file, join(dir, 'module'), what)),
      what,
      timeoutMs,
      options,
    );
  if (!loaded.ok) throw new UsageError(await locatedLoadError(loaded.error.message, init.file), loaded.error.hint);
  return loaded.value;
}

/**
 * Loads a planner module in one process of `pool` (kept for the first run when the runs' `options`
 * are known, else ended): what it exports, or the UsageError why not.
 */
async function loadIn(
  pool: PlannerPool,
  what: string,
  timeoutMs: number,
  options: Record<string, string> | undefined,
): Promise<
  Result<{ name: string; checkpoint?: Checkpoint; cpuBound?: boolean; pool: PlannerPool }, { error: UsageError }>
> {
  // Allowed what a run's process will be, so that it can serve the first run; nothing when that is not known.
  const allow = options ? runOrigins(options) : [];
  const escapes: Escape[] = [];
  const later: Escape[] = [];
  const sink = { to: (e: Escape) => void later.push(e) };
  const p = pool.spawn(allow, (e) => sink.to(e), modelUrls(options, process.env), llmCacheOf(options));
  const unused = () => endUnused({ p, later });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), timeoutMs)));
  let m: HostMessage | 'late';
  const loading = (e: Escape) => {
    unattributed(e);
    escapes.push(e);
  };
  try {
    m = await Promise.race([p.request(undefined, { escape: loading }), late]);
  } catch (e) {
    unused();
    const error = new UsageError(
      `${what} failed to load: ${(e as Error).message}`,
      'check that the file compiles and its imports resolve',
    );
    return { ok: false, error };
  } finally {
    clearTimeout(timer);
  }
  if (m === 'late' || m.t !== 'loaded' || !options) unused();
  else pool.keepLoaded({ p, allow, escapes, later, sink });
  if (m === 'late')
    return {
      ok: false,
      error: new UsageError(
        `${what} did not finish loading within ${Math.round(timeoutMs / 1000)} s`,
        'its top-level code must return (no endless loop at import)',
      ),
    };
  if (m.t !== 'loaded')
    return {
      ok: false,
      error: new UsageError(
        m.t === 'failed' ? m.message : `${what} failed to load`,
        m.t === 'failed' ? m.hint : undefined,
      ),
    };
  return {
    ok: true,
    value: {
      name: m.name,
      ...(m.checkpoint ? { checkpoint: m.checkpoint } : {}),
      ...(m.cpuBound === true ? { cpuBound: true } : {}),
      pool,
    },
  };
}

/** What each process holds of the views it was sent (view-delta.mjs): its encoder. */
const encoders = new WeakMap<PlannerProcess, ReturnType<typeof viewEncoder>>();

/** The delta that gives process `p` `view`, given the history it was last sent in this run. */
function viewDelta(p: PlannerProcess, view: PlannerView, sent: readonly unknown[]): ViewDelta {
  let encode = encoders.get(p);
  if (!encode) encoders.set(p, (encode = viewEncoder()));
  return encode(view, sent);
}

/**
 * A run's planner, whose code runs in a process from `pool`. Built in `create`, inside the run's
 * context (so the process's escapes are charged to the run); it gets its process in `start`, and the
 * run's planner is created there with the first decision's request (the `create` request held back
 * to go in the same write, both answered in one: a run costs the process as many round trips as
 * decisions).
 */
export function hostedPlanner(name: string, pool: PlannerPool, ctx: PlannerContext): Planner {
  const scope = new AsyncResource('oneway-planner');
  // `deny` (a framework's approval step, harness/features/mcp/approvals.ts) is for in-process session planners: not sent.
  const { reject: onReject, deny: _deny, ...plain } = ctx;
  let proc: PlannerProcess | undefined;
  let starting: Promise<PlannerProcess> | undefined;
  let created: Promise<HostMessage> | undefined;
  let closed = false;
  let outstanding = 0; // requests not answered yet: a process with any may not serve another run
  let used: Usage | undefined;
  /** Model requests the harness carried for the run (namespace mode), counted here, not by the planner. */
  const carried = { requests: 0, failed: 0, cached: 0, prompt_tokens: 0, completion_tokens: 0 };
  let sent: readonly unknown[] = [];
  // Rejected attempts arrive while the planner decides: they go to the run, not to the reply.
  const route = {
    escape: chargeIn(scope),
    carried: (c: Carried) => {
      carried.requests++;
      if (c.status === 0 || c.status >= 400) carried.failed++;
      if (c.cached) carried.cached++;
      carried.prompt_tokens += c.prompt_tokens;
      carried.completion_tokens += c.completion_tokens;
    },
    aside: (m: unknown) => {
      const x = m as HostMessage;
      if (x.t !== 'reject') return false;
      onReject?.(x.attempt);
      return true;
    },
  };

  /** Sends a request; its answer must be one of `expect`, anything else breaches the channel. */
  const ask = (p: PlannerProcess, m: HostRequest, expect: readonly HostMessage['t'][]): Promise<HostMessage> => {
    outstanding++;
    return p.request(m, route).then(
      (r) => {
        outstanding--;
        if (!expect.includes(r.t)) {
          p.breach(`it answered ${r.t} to ${m.t}`);
          throw new Error(`the planner's process broke its channel: it answered ${r.t} to ${m.t}`);
        }
        if ('usage' in r && r.usage) used = r.usage;
        return r;
      },
      (e: unknown) => {
        outstanding--;
        throw e;
      },
    );
  };

  /**
   * The run's process, with its planner's creation queued to go with the first decision's request
   * (not waited for). A process back from a run that left something pending answers `dirty`: the
   * run then starts on a new one (`fresh`).
   */
  const open = (fresh = false): Promise<PlannerProcess> =>
    (starting ??= (async () => {
      const { p, ending } = await pool.acquire(scope, plain.options ?? {}, fresh);
      if (closed) {
        pool.release(p, true, scope);
        throw new Error("the planner's run is over");
      }
      proc = p;
      // Until the process says how the last run ended, what it reports is that run's (unattributed).
      let ended = ending === undefined;
      const first = {
        escape: (e: Escape) => (ended ? route.escape(e) : chargeIn(ending as AsyncResource)(e)),
        carried: route.carried,
        aside: (m: unknown) => {
          if ((m as HostMessage).t !== 'ended') return route.aside(m);
          ended = true;
          return true;
        },
      };
      outstanding++;
      // Where the harness caches the model requests it carries, the planner does not cache them again (a
      // planner file built on the bundled LLM planner could not: its process writes and reads nothing outside).
      const ctx = p.caches ? { ...plain, options: withoutLlmCache(plain.options) } : plain;
      // Held back to go with the first decision's request, which follows at once: one write for both.
      created = p.request({ t: 'create', ctx, ...(ending ? { end: true as const } : {}) }, first, true).then(
        (r) => {
          outstanding--;
          if (r.t !== 'ready' && r.t !== 'failed' && r.t !== 'dirty') {
            p.breach(`it answered ${r.t} to create`);
            throw new Error(`the planner's process broke its channel: it answered ${r.t} to create`);
          }
          if (r.t === 'ready' && r.usage) used = r.usage;
          return r;
        },
        (e: unknown) => {
          outstanding--;
          throw e;
        },
      );
      // Answered with the first decision; a process that ends first fails that decision, not this promise.
      created.catch(() => {});
      return p;
    })());

  const host: HostedPlanner = {
    async start(decisionTimeoutMs) {
      const ms = Math.max(decisionTimeoutMs, START_FLOOR_MS);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), ms)));
      try {
        const p = await Promise.race([open(), late]);
        return p === 'late' ? ['decision_timeout', `the planner's process did not start within ${ms} ms`] : undefined;
      } catch (e) {
        return ['planner_error', `planner threw: ${e instanceof Error ? e.message : String(e)}`];
      } finally {
        clearTimeout(timer);
      }
    },
    close() {
      if (closed) return;
      closed = true;
      // A process still deciding (a timeout, a loop) or that faulted is killed; a clean one goes back.
      if (proc) pool.release(proc, outstanding === 0, scope);
    },
  };

  const planner: Planner & { [HOSTED]: HostedPlanner } = {
    name,
    async next(view: PlannerView): Promise<Decision> {
      // The first decision's request goes at once, behind the planner's creation, to a process from
      // the pool; if that process turns out dirty, it is killed and the run starts again on a new one.
      for (let fresh = false; ; fresh = true) {
        const p = await open(fresh);
        const reply = ask(p, { t: 'next', view: viewDelta(p, view, sent) }, ['decision', 'threw']);
        // Handled before `created` is awaited: a process that never decides (its `ready` goes with the decision)
        // is killed at the timeout, failing both.
        reply.catch(() => {});
        const made = await (created as Promise<HostMessage>);
        if (made.t === 'dirty' || made.t === 'failed') {
          if (made.t === 'failed') throw new Error(`planner failed to start: ${made.message}`);
          p.kill();
          starting = undefined;
          sent = [];
          continue;
        }
        sent = view.history;
        const m = await reply;
        if (m.t === 'threw') throw thrown(m.error);
        return (m as Extract<HostMessage, { t: 'decision' }>).value as Decision;
      }
    },
    // What the planner says it used; with model requests the harness carried, what the harness counted of them too.
    usage: () =>
      carried.requests === 0
        ? used
        : { ...(used ?? { prompt_tokens: 0, completion_tokens: 0 }), carried: { ...carried } },
    [HOSTED]: host,
  };
  return planner;
}
