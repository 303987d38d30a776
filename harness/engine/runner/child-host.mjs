// The main module of a sealed process (runner/sealed-process.ts): a planner file or a fuzz property
// module runs here, never in the harness's process. child-seal.cjs (preloaded) sealed the process
// and opened its channel before this line; this module takes the channel, imports the user's module
// and answers the harness's requests, one JSON line each way.
//
// A planner (`kind: 'planner'`) serves runs one at a time: `create` builds the run's planner (after
// saying, when told the last run is over, whether that run left anything pending: a timer, interval,
// immediate, socket or other handle; a process that is not clean then serves no other run), `next`
// answers one decision. A property module (`kind: 'property'`) answers `check` with a
// verdict, asking the harness for a rerun when the property does. An echo process (`kind: 'echo'`)
// imports nothing and answers every request with itself: the bench's round trip over the channel.
//
// Plain JavaScript: no TypeScript loader runs in a sealed process (the harness compiled a .ts file
// before starting it).
import { createRequire } from 'node:module';
import timers from 'node:timers';
import { pathToFileURL } from 'node:url';
import { plannerExport, propertyExports, verdictOf, PLANNER_HINT, PROPERTY_HINT } from './module-exports.mjs';
import { viewDecoder } from './view-delta.mjs';

const { channel } = createRequire(import.meta.url)('../sandbox/child-seal.cjs');
const { send, requests, parse, init, exit, deliver } = channel;

/**
 * Timers the module's code set and that have not fired or been cleared (unref'd ones included,
 * which the runtime does not list as active): a process with any is not clean.
 */
const live = new Set();
function trackTimers() {
  const once = (name, clear) => {
    const set = globalThis[name];
    const unset = globalThis[clear];
    const wrapped = function (cb, ...rest) {
      if (typeof cb !== 'function') return set.call(this, cb, ...rest);
      const handle = set.call(
        this,
        (...a) => {
          if (name !== 'setInterval') live.delete(handle);
          return cb(...a);
        },
        ...rest,
      );
      live.add(handle);
      return handle;
    };
    const cleared = function (handle) {
      live.delete(handle);
      return unset.call(this, handle);
    };
    globalThis[name] = timers[name] = wrapped;
    globalThis[clear] = timers[clear] = cleared;
  };
  once('setTimeout', 'clearTimeout');
  once('setInterval', 'clearInterval');
  once('setImmediate', 'clearImmediate');
}

/** Handles by kind, to compare with what the process held before the module loaded. */
function resources() {
  const counts = new Map();
  for (const r of process.getActiveResourcesInfo()) counts.set(r, (counts.get(r) ?? 0) + 1);
  return counts;
}
let baseline = new Map();
function clean() {
  if (live.size > 0) return false;
  for (const [kind, n] of resources()) if (n > (baseline.get(kind) ?? 0)) return false;
  return true;
}

function errorOf(e) {
  // The stack goes along for `oneway eval --verbose` (harness/cli/run-errors.ts).
  try {
    return e instanceof Error
      ? { name: String(e.name), message: String(e.message), ...(typeof e.stack === 'string' ? { stack: e.stack } : {}) }
      : { value: String(e) };
  } catch {
    return { value: 'an error that cannot be shown' };
  }
}
const errorText = (e) => {
  const err = errorOf(e);
  return err.value ?? `${err.name && err.name !== 'Error' ? `${err.name}: ` : ''}${err.message}`;
};

function failed(message, hint, later = false) {
  send({ t: 'failed', message, ...(hint ? { hint } : {}) }, later);
}

/** Serves a planner's runs. */
function servePlanner(mod) {
  const handle = plannerExport(mod, init.fallbackName);
  if (!handle) return failed(`${init.spec} does not export a planner`, PLANNER_HINT);
  let planner;
  // The views the harness sends as what changed (runner/view-delta.mjs), rebuilt deep-frozen as in process.
  const views = viewDecoder();
  const usage = () => {
    try {
      const u = planner?.usage?.();
      return u === undefined ? {} : { usage: u };
    } catch {
      return {};
    }
  };
  const answer = {
    create(m) {
      // The process's last run is over: whether it left anything pending decides whether this one may start here.
      // These answers are held back (send's `later`) to leave with the run's first decision, which the harness sent
      // with this request: one write, one wake-up of the harness (an escape, or the loop turning, writes them first).
      if (m.end) {
        const wasClean = clean();
        send({ t: 'ended', clean: wasClean }, true);
        if (!wasClean) return send({ t: 'dirty' }, true);
      }
      planner = undefined;
      views.newRun();
      try {
        planner = handle.create({ ...m.ctx, reject: (attempt) => send({ t: 'reject', attempt }) });
      } catch (e) {
        return failed(errorText(e), undefined, true);
      }
      send({ t: 'ready', ...usage() }, true);
    },
    async next(m) {
      // Rebuilt whether or not a planner takes it: the harness counts on this process holding what it sent.
      const view = views.apply(m.view);
      if (!planner) return send({ t: 'threw', error: { name: 'Error', message: 'internal: no run in this process' } });
      let value;
      try {
        value = await planner.next(view);
      } catch (e) {
        return send({ t: 'threw', error: errorOf(e) });
      }
      if (!send({ t: 'decision', value, ...usage() }))
        send({
          t: 'threw',
          error: { name: 'Error', message: "its decision cannot leave the planner's process (not JSON)" },
        });
    },
  };
  send({
    t: 'loaded',
    name: handle.name,
    ...(handle.checkpoint ? { checkpoint: handle.checkpoint } : {}),
    ...(handle.cpuBound ? { cpuBound: true } : {}),
  });
  return answer;
}

/** Serves a property module's checks. */
function serveProperties(mod) {
  const properties = propertyExports(mod);
  if (properties.length === 0) return failed(`${init.spec} does not export a property`, PROPERTY_HINT);
  const reruns = new Map();
  let nextRerun = 0;
  const answer = {
    async check(m) {
      const p = properties[m.index];
      const ctx = {
        ...m.ctx,
        run: m.run,
        rerun(change = {}) {
          const id = nextRerun++;
          return new Promise((resolve) => {
            reruns.set(id, resolve);
            send({ t: 'rerun', id, change });
          });
        },
      };
      let verdict;
      try {
        verdict = verdictOf(await p.check(m.run.events, ctx));
      } catch (e) {
        verdict = `check threw: ${errorOf(e).message ?? errorText(e)}`;
      }
      send({ t: 'verdict', value: verdict });
    },
    rerun(m) {
      reruns.get(m.id)?.(m.run);
      reruns.delete(m.id);
    },
  };
  send({
    t: 'loaded',
    properties: properties.map((p) => ({
      name: String(p.name),
      ...(typeof p.description === 'string' ? { description: p.description } : {}),
      // Checked by the harness (features/fuzz/property-module.ts): who is at fault when the property fails.
      ...(p.owner !== undefined
        ? { owner: typeof p.owner === 'string' ? p.owner.slice(0, 200) : String(p.owner) }
        : {}),
    })),
  });
  return answer;
}

/**
 * Answers every request with itself (the bench's floor: a round trip over the same channel), after
 * keeping the CPU busy for `m.busy` microseconds if asked (as a planner deciding would).
 */
function serveEcho() {
  send({ t: 'loaded' });
  return {
    echo(m) {
      const until = performance.now() + (m.busy ?? 0) / 1000;
      while (performance.now() < until);
      send(m);
    },
  };
}

async function main() {
  // A throw from the module's timers, or a rejection nobody handles, ends the process: the harness hears why.
  process.on('uncaughtException', (e) => {
    send({ t: 'uncaught', error: errorOf(e) });
    exit(70);
  });
  trackTimers();
  let answer;
  const pending = [];
  let buffered = '';
  requests.setEncoding('utf8');
  requests.on('data', (chunk) => {
    buffered += chunk;
    for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
      const m = parse(buffered.slice(0, i));
      buffered = buffered.slice(i + 1);
      // The answer to a model request the harness carried (child-seal.cjs): whatever is loading or deciding.
      if (m?.t === 'fetched') deliver(m);
      else if (answer) void answer[m.t]?.(m);
      else pending.push(m);
    }
  });
  // The harness is gone: so is this process.
  requests.on('end', () => exit(0));
  requests.resume();
  // The process's own handles (the channel, stdout and stderr) are not the module's.
  void process.stdout;
  void process.stderr;
  baseline = resources();
  if (init.kind === 'echo') {
    answer = serveEcho();
    for (const m of pending.splice(0)) void answer[m.t]?.(m);
    return;
  }
  let mod;
  try {
    mod = await import(pathToFileURL(init.file).href);
  } catch (e) {
    return failed(
      `${init.what} failed to load: ${errorText(e)}`,
      'check that the file compiles and its imports resolve',
    );
  }
  answer = init.kind === 'property' ? serveProperties(mod) : servePlanner(mod);
  if (answer) for (const m of pending.splice(0)) void answer[m.t]?.(m);
}

await main();
