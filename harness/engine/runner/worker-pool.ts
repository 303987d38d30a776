/**
 * A small pool of worker threads, shared by `eval --workers` and `fuzz --workers`:
 * the main thread hands out jobs as workers become free, each worker answers job
 * by job, in the order given. A worker holds one job beyond the one it runs, so it
 * never waits a message round trip for its next job (the main thread may be busy
 * writing a results checkpoint when a job ends). Workers run TypeScript: `worker-boot.mjs` registers tsx in the thread
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
  workers: number;
  /** Caps each worker's young generation (V8's default lets it reach 48 MiB a thread). */
  youngGenerationMb?: number;
  /** The next job to hand out, or undefined when there is none left (the worker then stops). */
  next(): JobMessage | undefined;
  done(index: number, value: T): void;
}

/** Jobs a worker holds at once: the one it runs and the next. */
const AHEAD = 2;

export async function runOnWorkers<T>(opts: PoolOptions<T>): Promise<void> {
  const one = () =>
    new Promise<void>((resolve, reject) => {
      // Sealed from its first line (sandbox/socket-seal.cjs, preloaded): a worker does not inherit this thread's patches.
      const w = socketSeal.sealedWorker(new URL('./worker-boot.mjs', import.meta.url), {
        workerData: { entry: opts.entry.href, data: opts.data },
        ...(opts.youngGenerationMb ? { resourceLimits: { maxYoungGenerationSizeMb: opts.youngGenerationMb } } : {}),
      });
      // Jobs handed to this worker and not answered yet; `stop` goes once none is left to hand out.
      let held = 0;
      let stopped = false;
      const give = () => {
        while (!stopped && held < AHEAD) {
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

/** The data the main thread gave this worker. */
export function workerInput<D>(): D {
  return (workerData as { data: D }).data;
}

/**
 * The worker side: answers each job with `handle`, reports failures as values,
 * and runs `close` when told to stop.
 */
export function serveJobs<T>(handle: (job: JobMessage) => Promise<T>, close: () => void = () => {}): void {
  const port = parentPort;
  if (!port) throw new Error('internal: serveJobs runs only in a worker thread');
  // Jobs arrive ahead of need (runOnWorkers keeps one waiting); they run one at a time, in order.
  const queue: ToWorker[] = [];
  let running = false;
  const drain = async () => {
    running = true;
    for (let m = queue.shift(); m !== undefined; m = queue.shift()) {
      if (m.type === 'stop') {
        close();
        port.close();
        return;
      }
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
    }
    running = false;
  };
  port.on('message', (m: ToWorker) => {
    queue.push(m);
    if (!running) void drain();
  });
  port.postMessage({ type: 'ready' } satisfies FromWorker<T>);
}
