/**
 * Planner files run in worker threads of their own, never in the evaluation's thread.
 *
 * A planner module loaded from a file (`--planner=./mine.ts`) is someone else's code: a throw
 * from its timer, an interval it leaves behind, or a loop that never yields must end only its
 * own run. Its code runs in a thread sealed from its first line, for good (see
 * sandbox/socket-seal.cjs), which imports the module and answers one decision at a time; the
 * runner keeps the sandbox, the transport, the guard and the clock in its own thread. So:
 *
 * - an uncaught exception or unhandled rejection in the planner's thread ends the run with
 *   `planner_error`; the evaluation goes on;
 * - a decision that takes longer than `--decision-timeout` (a synchronous endless loop
 *   included) ends the run with `decision_timeout`, and the thread is terminated;
 * - when a run ends, its thread serves the next run of the same planner only if nothing of the
 *   run is pending there (no timer, interval, immediate, socket or other handle); otherwise it
 *   is terminated with whatever it left running. Starting a thread costs ~150 ms, so a
 *   well-behaved planner keeps one thread per run in flight;
 * - planner code cannot see the runner's requests, tokens or sandbox at all.
 *
 * Loading a file to learn its planner's name happens in such a thread too (`probePlanner`), so a
 * module's top-level code never runs in the evaluation's thread.
 */
import { AsyncResource } from 'node:async_hooks';
import type { Worker } from 'node:worker_threads';
import { UsageError } from '../../core/errors.ts';
import type { Decision, Planner, PlannerContext, PlannerView } from '../../core/planner.ts';
import type { Checkpoint, EndReason } from '../../core/record.ts';
import socketSeal from '../sandbox/socket-seal.cjs';
import { ownModule } from '../../util/module-url.ts';

const BOOT = new URL('./worker-boot.mjs', import.meta.url);
const HOST = ownModule('./planner-host', import.meta.url);
const HOSTED = Symbol('oneway.hosted-planner');

/** How long loading a planner module may take (a module that never finishes loading is a usage error). */
const LOAD_TIMEOUT_MS = 60_000;
/** The least time a run's planner thread is given to start, whatever the decision timeout. */
const START_FLOOR_MS = 30_000;

type Usage = ReturnType<NonNullable<Planner['usage']>>;

/** What a planner thread is started with (structured-clonable). */
export interface HostInit {
  file: string;
  spec: string;
  fallbackName: string;
}

/** What the runner asks a planner thread. */
export type HostRequest =
  | { type: 'create'; ctx: Omit<PlannerContext, 'reject' | 'deny'> }
  | { type: 'next'; view: PlannerView }
  | { type: 'end' };

/** What a planner thread says; `escapes` is how many attempts it has reported so far. */
export type HostMessage =
  | { type: 'loaded'; name: string; checkpoint?: Checkpoint; cpuBound?: boolean; escapes: number }
  | { type: 'failed'; message: string; hint?: string; escapes: number }
  | { type: 'ready'; escapes: number; usage?: Usage }
  | { type: 'decision'; value: unknown; escapes: number; usage?: Usage }
  | { type: 'threw'; error: { name?: string; message?: string; value?: string; stack?: string }; escapes: number }
  | { type: 'ended'; clean: boolean; escapes: number }
  | { type: 'reject'; attempt: Parameters<NonNullable<PlannerContext['reject']>>[0] };

export interface HostedPlanner {
  /** Gets the run a thread; resolves with how the run ends when it cannot start. */
  start(decisionTimeoutMs: number): Promise<[EndReason, string] | undefined>;
  /** Ends the run's hold on its thread (idempotent). */
  close(): void;
}

/** The thread behind a planner, when it runs in one. */
export function hostOf(planner: Planner | undefined): HostedPlanner | undefined {
  return (planner as (Planner & { [HOSTED]?: HostedPlanner }) | undefined)?.[HOSTED];
}

/**
 * The model endpoint a planner's options configure (`base_url`, else `OPENAI_BASE_URL`, else
 * OpenAI's), which an LLM planner loaded from a file may reach; none for a replay.
 */
function modelOrigins(options: Record<string, string>, env: NodeJS.ProcessEnv): { host: string; port: number }[] {
  if (options.llm_cache === 'replay') return [];
  try {
    const u = new URL(options.base_url ?? env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1');
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return [];
    return [{ host: u.hostname, port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)) }];
  } catch {
    return [];
  }
}

/** An error from the planner's thread, as the runner reports it (`planner threw: ...`). */
function thrown(error: { name?: string; message?: string; value?: string; stack?: string }): unknown {
  if (error.value !== undefined) return error.value;
  const e = new Error(error.message ?? 'unknown error');
  if (error.name) e.name = error.name;
  // The planner's own stack (its thread's), for `oneway eval --verbose`.
  if (error.stack) e.stack = error.stack;
  return e;
}

/** A listener for what a thread says, bound to whoever holds the thread now. */
interface Lease {
  /** The async context escapes are reported in (the run's). */
  scope: AsyncResource;
  message(m: HostMessage): void;
  fault(e: unknown): void;
}

/**
 * One sealed planner thread: replies are handed over only once every escape the thread reported
 * before them has arrived (they come over another port), so a record has them in the order they
 * happened.
 */
class PlannerThread {
  readonly worker: Worker;
  lease: Lease | undefined;
  dead = false;
  private error: unknown;
  private received = 0;
  private held: HostMessage[] = [];

  constructor(init: HostInit, allow: { host: string; port: number }[], scope: AsyncResource) {
    let owner = scope;
    this.worker = socketSeal.sealedWorker(
      BOOT,
      { workerData: { entry: HOST.href, data: init } },
      {
        locked: true,
        allow,
        route: (e) => {
          owner = this.lease?.scope ?? owner;
          owner.runInAsyncScope(() => socketSeal.report(e));
          this.received++;
          this.flush();
        },
      },
    );
    this.worker.on('message', (m: HostMessage) => {
      if (m.type === 'reject') return this.lease?.message(m);
      this.held.push(m);
      this.flush();
    });
    this.worker.on('error', (e) => this.die(new Error(`${e.message} (uncaught in the planner's thread)`)));
    this.worker.on('exit', (code) => this.die(new Error(`the planner's thread exited (code ${code})`)));
  }

  private flush(): void {
    while (this.held.length > 0 && this.received >= (this.held[0] as { escapes: number }).escapes) {
      const m = this.held.shift() as HostMessage;
      this.lease?.message(m);
    }
  }

  private die(e: unknown): void {
    if (this.dead) return;
    this.dead = true;
    this.error = e;
    this.lease?.fault(e);
  }

  send(m: HostRequest): void {
    this.worker.postMessage(m);
  }

  /** Stops the thread, whatever it is doing, and lets the process exit without it. */
  kill(): void {
    this.dead = true;
    this.lease = undefined;
    this.worker.removeAllListeners('message');
    this.worker.on('error', () => {});
    void this.worker.terminate().catch(() => {});
    this.worker.unref();
  }

  /** Waits for one message (or the thread's death). */
  once(scope: AsyncResource): Promise<HostMessage> {
    return new Promise((resolve, reject) => {
      if (this.dead) return reject(this.error ?? new Error("the planner's thread is gone"));
      this.lease = { scope, message: resolve, fault: reject };
    });
  }
}

/** The threads of one planner file: idle ones serve the next run. */
export class PlannerPool {
  private readonly idle: PlannerThread[] = [];
  private readonly returning = new Set<Promise<void>>();

  constructor(readonly init: HostInit) {}

  private park(t: PlannerThread): void {
    t.lease = undefined;
    t.worker.unref();
    this.idle.push(t);
  }

  /** A loaded thread for a run (one coming back from its last run first). */
  async acquire(scope: AsyncResource, options: Record<string, string>): Promise<PlannerThread> {
    while (this.idle.length === 0 && this.returning.size > 0) await Promise.race(this.returning);
    for (let reused = this.idle.pop(); reused; reused = this.idle.pop()) {
      if (reused.dead) continue;
      reused.worker.ref();
      return reused;
    }
    const t = new PlannerThread(this.init, [...socketSeal.allowed(), ...modelOrigins(options, process.env)], scope);
    const m = await t.once(scope);
    if (m.type === 'loaded') return t;
    t.kill();
    throw new Error(m.type === 'failed' ? m.message : `internal: unexpected ${m.type} from the planner's thread`);
  }

  /** A run is over: the thread serves again if it is clean, else it is terminated. */
  release(t: PlannerThread, reusable: boolean, scope: AsyncResource): void {
    if (!reusable || t.dead) return t.kill();
    const back = t
      .once(scope)
      .then((m) => (m.type === 'ended' && m.clean ? this.park(t) : t.kill()))
      .catch(() => t.kill())
      .finally(() => this.returning.delete(back));
    this.returning.add(back);
    try {
      t.send({ type: 'end' });
    } catch {
      t.kill();
    }
  }
}

/**
 * Loads a planner module in a sealed thread and returns its planner's name and the pool its runs
 * will use. What the module exports is checked there; a module that fails to load, exports no
 * planner or does not finish loading within `LOAD_TIMEOUT_MS` is a usage error. Attempts its
 * top-level code makes while loading are unattributed (a run's own thread makes them again).
 */
export async function probePlanner(
  init: HostInit,
  timeoutMs = LOAD_TIMEOUT_MS,
): Promise<{ name: string; checkpoint?: Checkpoint; cpuBound?: boolean; pool: PlannerPool }> {
  const scope = new AsyncResource('oneway-planner-load');
  const t = new PlannerThread(init, [], scope);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), timeoutMs)));
  let m: HostMessage | 'late';
  try {
    m = await Promise.race([t.once(scope), late]);
  } catch (e) {
    t.kill();
    throw new UsageError(
      `planner module ${init.spec} failed to load: ${(e as Error).message}`,
      'check that the file compiles and its imports resolve',
    );
  } finally {
    clearTimeout(timer);
  }
  if (m === 'late') {
    t.kill();
    throw new UsageError(
      `planner module ${init.spec} did not finish loading within ${Math.round(timeoutMs / 1000)} s`,
      'its top-level code must return (no endless loop at import)',
    );
  }
  if (m.type !== 'loaded') {
    t.kill();
    throw new UsageError(
      m.type === 'failed' ? m.message : `planner module ${init.spec} failed to load`,
      m.type === 'failed' ? m.hint : undefined,
    );
  }
  // Not reused: each run's thread imports the module again, so what its top level does is charged to a run.
  t.kill();
  return {
    name: m.name,
    ...(m.checkpoint ? { checkpoint: m.checkpoint } : {}),
    ...(m.cpuBound === true ? { cpuBound: true } : {}),
    pool: new PlannerPool(init),
  };
}

/**
 * A run's planner, whose code runs in a thread from `pool`. Built in `create`, inside the run's
 * context (so the thread's escapes are charged to the run); it gets its thread in `start`.
 */
export function hostedPlanner(name: string, pool: PlannerPool, ctx: PlannerContext): Planner {
  const scope = new AsyncResource('oneway-planner');
  // `deny` (a framework's approval step, harness/features/mcp/approvals.ts) is for in-process session planners: not sent to the thread.
  const { reject: onReject, deny: _deny, ...plain } = ctx;
  let thread: PlannerThread | undefined;
  let starting: Promise<PlannerThread> | undefined;
  let closed = false;
  let clean = true; // every request answered: the thread may serve another run
  let usage: Usage | undefined;

  const ask = async (t: PlannerThread, m: HostRequest): Promise<HostMessage> => {
    clean = false;
    const reply = t.once(scope);
    const lease = t.lease;
    if (lease) {
      // Rejected attempts arrive while the planner decides: they go to the run, not to the reply.
      const settle = lease.message;
      lease.message = (x) => (x.type === 'reject' ? onReject?.(x.attempt) : settle(x));
    }
    t.send(m);
    const r = await reply;
    clean = true;
    if ('usage' in r && r.usage) usage = r.usage;
    return r;
  };

  const open = (): Promise<PlannerThread> =>
    (starting ??= (async () => {
      const t = await pool.acquire(scope, plain.options ?? {});
      if (closed) {
        pool.release(t, true, scope);
        throw new Error("the planner's run is over");
      }
      thread = t;
      const r = await ask(t, { type: 'create', ctx: plain });
      if (r.type === 'failed') throw new Error(`planner failed to start: ${r.message}`);
      return t;
    })());

  const host: HostedPlanner = {
    async start(decisionTimeoutMs) {
      const ms = Math.max(decisionTimeoutMs, START_FLOOR_MS);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), ms)));
      try {
        const t = await Promise.race([open(), late]);
        return t === 'late' ? ['decision_timeout', `the planner's thread did not start within ${ms} ms`] : undefined;
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        return ['planner_error', message.startsWith('planner failed to start') ? message : `planner threw: ${message}`];
      } finally {
        clearTimeout(timer);
      }
    },
    close() {
      if (closed) return;
      closed = true;
      // A thread still deciding (a timeout, a loop) or that faulted is terminated; a clean one goes back.
      if (thread) pool.release(thread, clean, scope);
    },
  };

  const planner: Planner & { [HOSTED]: HostedPlanner } = {
    name,
    async next(view: PlannerView): Promise<Decision> {
      const t = await open();
      const m = await ask(t, { type: 'next', view });
      if (m.type === 'threw') throw thrown(m.error);
      if (m.type !== 'decision') throw new Error(`internal: unexpected message from the planner's thread (${m.type})`);
      return m.value as Decision;
    },
    usage: () => usage as Usage,
    [HOSTED]: host,
  };
  return planner;
}
