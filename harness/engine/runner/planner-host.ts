/**
 * The planner's side of runner/isolate.ts, in a worker thread sealed from its first line:
 * imports the planner module once, then serves runs one at a time: `create` builds the run's
 * planner, `next` answers one decision, `end` closes the run and says whether the thread is clean
 * (nothing of the run still pending: no timer, interval, immediate, socket or other handle), so
 * it may serve the next run of the same planner.
 */
import { parentPort, workerData } from 'node:worker_threads';
import timers from 'node:timers';
import { pathToFileURL } from 'node:url';
import socketSeal from '../sandbox/socket-seal.cjs';
import type { Planner } from '../../core/planner.ts';
import { UsageError } from '../../core/errors.ts';
import type { HostInit, HostMessage, HostRequest } from './isolate.ts';
import { toHandle } from './planners.ts';
import type { PlannerHandle } from './run.ts';

if (!parentPort) throw new Error('internal: planner-host runs only in a worker thread');
const port = parentPort;
const init = (workerData as { data: HostInit }).data;
const post = (m: HostMessage) => port.postMessage(m);
const escapes = () => socketSeal.reported;

/**
 * Timers the planner's code set and that have not fired or been cleared (unref'd ones included,
 * which the runtime does not list as active): a thread with any is not clean.
 */
const live = new Set<unknown>();
function trackTimers(): void {
  const g = globalThis as unknown as Record<string, (...a: unknown[]) => unknown>;
  const t = timers as unknown as Record<string, (...a: unknown[]) => unknown>;
  const once = (name: string, clear: string) => {
    const set = g[name]!;
    const unset = g[clear]!;
    const wrapped = function (this: unknown, cb: unknown, ...rest: unknown[]) {
      if (typeof cb !== 'function') return set.call(this, cb, ...rest);
      const handle: unknown = set.call(
        this,
        (...a: unknown[]) => {
          if (name !== 'setInterval') live.delete(handle);
          return (cb as (...x: unknown[]) => unknown)(...a);
        },
        ...rest,
      );
      live.add(handle);
      return handle;
    };
    const cleared = function (this: unknown, handle: unknown) {
      live.delete(handle);
      return unset.call(this, handle);
    };
    g[name] = t[name] = wrapped;
    g[clear] = t[clear] = cleared;
  };
  once('setTimeout', 'clearTimeout');
  once('setInterval', 'clearInterval');
  once('setImmediate', 'clearImmediate');
}

function clean(): boolean {
  return live.size === 0 && process.getActiveResourcesInfo().every((r) => r === 'MessagePort');
}

function failed(message: string, hint?: string): void {
  post({ type: 'failed', message, ...(hint ? { hint } : {}), escapes: escapes() });
}

function errorOf(e: unknown): { name?: string; message?: string; value?: string; stack?: string } {
  // The stack goes along for `oneway eval --verbose` (harness/cli/run-errors.ts).
  return e instanceof Error
    ? { name: e.name, message: e.message, ...(typeof e.stack === 'string' ? { stack: e.stack } : {}) }
    : { value: String(e) };
}

async function main(): Promise<void> {
  trackTimers();
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(init.file).href)) as Record<string, unknown>;
  } catch (e) {
    return failed(
      `planner module ${init.spec} failed to load: ${(e as Error)?.message ?? String(e)}`,
      'check that the file compiles and its imports resolve',
    );
  }
  let handle: PlannerHandle;
  try {
    handle = toHandle(mod, init.fallbackName, init.spec);
  } catch (e) {
    return e instanceof UsageError ? failed(e.message, e.hint) : failed(String((e as Error)?.message ?? e));
  }
  let planner: Planner | undefined;
  const usage = () => {
    try {
      return planner?.usage?.();
    } catch {
      return undefined;
    }
  };
  port.on('message', async (m: HostRequest) => {
    if (m.type === 'create') {
      try {
        planner = handle.create({ ...m.ctx, reject: (attempt) => post({ type: 'reject', attempt }) });
      } catch (e) {
        const err = errorOf(e);
        return failed(err.value ?? `${err.name && err.name !== 'Error' ? `${err.name}: ` : ''}${err.message}`);
      }
      const u = usage();
      return post({ type: 'ready', escapes: escapes(), ...(u ? { usage: u } : {}) });
    }
    if (m.type === 'end') {
      planner = undefined;
      return post({ type: 'ended', clean: clean(), escapes: escapes() });
    }
    const p = planner;
    if (!p)
      return post({
        type: 'threw',
        error: { name: 'Error', message: 'internal: no run in this thread' },
        escapes: escapes(),
      });
    try {
      const value = await p.next(m.view);
      const u = usage();
      try {
        post({ type: 'decision', value, escapes: escapes(), ...(u ? { usage: u } : {}) });
      } catch (e) {
        post({
          type: 'threw',
          error: { name: 'Error', message: `its decision cannot leave the planner's thread: ${(e as Error).message}` },
          escapes: escapes(),
        });
      }
    } catch (e) {
      post({ type: 'threw', error: errorOf(e), escapes: escapes() });
    }
  });
  post({
    type: 'loaded',
    name: handle.name,
    ...(handle.checkpoint ? { checkpoint: handle.checkpoint } : {}),
    ...(handle.cpuBound ? { cpuBound: true } : {}),
    escapes: escapes(),
  });
}

await main();
