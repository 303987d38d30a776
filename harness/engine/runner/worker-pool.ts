/**
 * A small pool of worker threads, shared by `eval --workers` and `fuzz --workers`:
 * the main thread hands out jobs as workers become free, and each worker runs up
 * to `inFlight` of them at once (1 by default: one after another, in the order
 * given), answering each as it ends. A worker holds one job beyond those it runs,
 * so it never waits a message round trip for its next job (the main thread may be
 * busy writing a results checkpoint when a job ends). Workers run TypeScript: `worker-boot.mjs` registers tsx in the thread
 * (a worker does not inherit the main thread's loader hooks on Node 20), then
 * imports the worker module. Each worker has the seal's socket layer preloaded
 * and on for its whole life (sandbox/socket-seal.cjs).
 *
 * @example
 * await runOnWorkers({ entry: new URL('../../util/worker-main.ts', import.meta.url), data, workers: 2, next, done });
 */
import { parentPort, workerData } from 'node:worker_threads';
import socketSeal from '../sandbox/socket-seal.cjs';
import { UsageError } from '../../core/errors.ts';

export type JobMessage = { type: 'job'; index: number } & Record<string, unknown>;
type ToWorker = JobMessage | { type: 'stop' };
type FromWorker<T> =
  | { type: 'ready' }
  | { type: 'done'; index: number; value: T }
  | { type: 'failed'; index: number; message: string; usage?: { hint?: string } };

export interface PoolOptions<T> {
  /** The worker module (TypeScript is fine). */
  entry: URL;
  /** Structured-clonable data every worker starts from. */
  data: unknown;
  /**
   * The files of the modules a worker loads besides `entry` (planner files, property modules):
   * one in TypeScript has the worker register tsx (worker-boot.mjs). Named here, not looked for in
   * `data`, which holds every scenario (serialising it to look took each worker 0.2 CPU-s and a
   * 30 MB string at the bench's 8,000 runs).
   */
  modules?: readonly string[];
  workers: number;
  /** Caps each worker's young generation (V8's default lets it reach 48 MiB a thread). */
  youngGenerationMb?: number;
  /**
   * Jobs each worker runs at once (default 1). More overlap what a job waits for (its record
   * file's writes, a checkpoint) with another job's work; `handle` must then allow it.
   */
  inFlight?: number;
  /** The next job to hand out, or undefined when there is none left (the worker then stops). */
  next(): JobMessage | undefined;
  done(index: number, value: T): void;
}

export async function runOnWorkers<T>(opts: PoolOptions<T>): Promise<void> {
  const inFlight = Math.max(1, Math.floor(opts.inFlight ?? 1));
  // Jobs a worker holds at once: those it runs and the next.
  const ahead = inFlight + 1;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      // Sealed from its first line (sandbox/socket-seal.cjs, preloaded): a worker does not inherit this thread's patches.
      const w = socketSeal.sealedWorker(new URL('./worker-boot.mjs', import.meta.url), {
        workerData: {
          entry: opts.entry.href,
          data: opts.data,
          modules: [...(opts.modules ?? [])],
          inFlight,
        } satisfies PoolData,
        ...(opts.youngGenerationMb ? { resourceLimits: { maxYoungGenerationSizeMb: opts.youngGenerationMb } } : {}),
      });
      // Jobs handed to this worker and not answered yet; `stop` goes once none is left to hand out.
      let held = 0;
      let stopped = false;
      const give = () => {
        while (!stopped && held < ahead) {
          const job = opts.next();
          if (job === undefined) {
            stopped = true;
            w.postMessage({ type: 'stop' } satisfies ToWorker);
          } else {
            held++;
            w.postMessage(job satisfies ToWorker);
          }
        }
      };
      w.on('message', (m: FromWorker<T>) => {
        if (m.type === 'ready') return give();
        held--;
        // The user's error (a full disk under --out, ...) stays the user's error across the thread boundary.
        if (m.type === 'failed')
          return reject(
            m.usage
              ? new UsageError(m.message, m.usage.hint)
              : new Error(`worker failed on job ${m.index}: ${m.message}`),
          );
        opts.done(m.index, m.value);
        give();
      });
      w.on('error', reject);
      w.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker exited with code ${code}`))));
    });
  await Promise.all(Array.from({ length: Math.max(1, opts.workers) }, one));
}

/** What a pool's worker starts with (`workerData`): worker-boot.mjs imports `entry`. */
interface PoolData {
  entry: string;
  data: unknown;
  /** PoolOptions.modules. */
  modules: string[];
  inFlight: number;
}

/** The data the main thread gave this worker. */
export function workerInput<D>(): D {
  return (workerData as PoolData).data as D;
}

/**
 * The worker side: answers each job with `handle` (up to the pool's `inFlight` at once, started in
 * the order given), reports failures as values, and runs `close` when told to stop, once every job
 * it started has been answered.
 */
export function serveJobs<T>(handle: (job: JobMessage) => Promise<T>, close: () => void = () => {}): void {
  const port = parentPort;
  if (!port) throw new Error('internal: serveJobs runs only in a worker thread');
  const inFlight = (workerData as PoolData).inFlight; // at least 1: runOnWorkers made it so
  // Jobs arrive ahead of need (runOnWorkers keeps one more than inFlight here).
  const queue: ToWorker[] = [];
  let running = 0;
  const answer = async (m: JobMessage) => {
    running++;
    try {
      port.postMessage({ type: 'done', index: m.index, value: await handle(m) } satisfies FromWorker<T>);
    } catch (e) {
      const usage = e instanceof UsageError ? { usage: e.hint === undefined ? {} : { hint: e.hint } } : {};
      port.postMessage({
        type: 'failed',
        index: m.index,
        message: (e as Error).message,
        ...usage,
      } satisfies FromWorker<T>);
    }
    running--;
    start();
  };
  const start = () => {
    while (running < inFlight && queue.length > 0) {
      const m = queue[0] as ToWorker;
      if (m.type === 'stop') {
        if (running > 0) return; // the last answer starts this again
        queue.shift();
        close();
        port.close();
        return;
      }
      queue.shift();
      void answer(m);
    }
  };
  port.on('message', (m: ToWorker) => {
    queue.push(m);
    start();
  });
  port.postMessage({ type: 'ready' } satisfies FromWorker<T>);
}
