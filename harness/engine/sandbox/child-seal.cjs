'use strict';
/**
 * The seal of a sealed process (a planner file, a fuzz property module: runner/sealed-process.ts),
 * preloaded with `--require` before any of its own code, under Node's permission model.
 *
 * The permission model (set by the parent's flags) refuses file writes outside the process's
 * scratch directory, child processes, worker threads, native addons, WASI and the inspector; it
 * does not cover the network (Node 20-24), signals to other processes, loader hooks on every Node
 * this runs on, or the inspector of another process. This file:
 *
 * - opens the process's channel to the harness: requests come in on fd 3, and everything it says
 *   goes out on fd 4 as JSON lines, written synchronously with functions captured here, before any
 *   other code ran (so nothing the module patches later can drop, delay or reorder a line). The
 *   host may hold a line back (`send(m, true)`: a run's `ready`, sent with its first decision, so
 *   that a decision is one write and one wake-up of the harness); a held line goes out before the
 *   next line written, an escape included, or at the latest once the event loop turns;
 * - seals the network with the socket layer (socket-seal.cjs), locked, with the allowed origins the
 *   harness gave, each refusal written to the channel at once as an `escape` line;
 * - writes an `escape` line for every reach the permission model refuses (ERR_ACCESS_DENIED,
 *   ERR_DLOPEN_DISABLED from fs, fs/promises, child_process, worker threads, process.dlopen,
 *   process.binding, WASI, the inspector, v8 and process.report writes);
 * - refuses, and reports, what the permission model leaves open: a signal to any other process
 *   (`process.kill`, `process._kill`), the inspector of another process (`process._debugProcess`),
 *   another process's priority (`os.setPriority`), and off-thread loader hooks (`module.register`).
 *
 * The channel cannot be silenced: before each line the fd is checked to still be the pipe the
 * harness opened (a module that closes it, or puts a file in its place, would otherwise make lines
 * vanish); when it is not, or a write fails, the process exits at once with CHANNEL_LOST_EXIT,
 * which the harness counts as an escape. The harness validates every line; a line that is not
 * what it expects ends the run as a planner error and counts as an escape too.
 */
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const v8 = require('node:v8');
const mod = require('node:module');
const socketSeal = require('./socket-seal.cjs');

const IN_FD = 3;
const OUT_FD = 4;
const CONFIG_ENV = 'ONEWAY_SEALED_PROCESS';

// Captured before any other code runs: what sends a line must not be reachable by later patches.
const writeSync = fs.writeSync;
const fstatSync = fs.fstatSync;
const setImmediateOf = setImmediate;
const clearImmediateOf = clearImmediate;
const stringify = JSON.stringify;
const parse = JSON.parse;
const reallyExit = process.reallyExit.bind(process);
const apply = Reflect.apply;
const construct = Reflect.construct;
const ownKeys = Reflect.ownKeys;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const defineProperty = Object.defineProperty;
const WeakSetOf = WeakSet;
const WeakSetAdd = WeakSet.prototype.add;
const WeakSetHas = WeakSet.prototype.has;
const StringOf = String;
const pid = process.pid;

const config = parse(process.env[CONFIG_ENV] ?? 'null');
delete process.env[CONFIG_ENV];
/** The exit code of a process whose channel is gone (closed, replaced, unwritable): the harness's. */
const CHANNEL_LOST_EXIT = config?.lostExit ?? 86;
if (config === null || typeof config !== 'object') {
  process.stderr.write('oneway: child-seal.cjs runs only in a process the harness started sealed\n');
  reallyExit(CHANNEL_LOST_EXIT);
}

const out = fstatSync(OUT_FD);
/** Lines held back (`send(m, true)`), and the turn of the event loop that writes them if nothing else does first. */
let held = '';
let flushing = null;

/** Writes lines to the channel, or ends the process when the channel is not the harness's any more. */
function write(lines) {
  try {
    const now = fstatSync(OUT_FD);
    if (now.ino !== out.ino || now.dev !== out.dev) reallyExit(CHANNEL_LOST_EXIT);
    writeSync(OUT_FD, lines);
  } catch {
    reallyExit(CHANNEL_LOST_EXIT);
  }
}

function flush() {
  flushing = null;
  const lines = held;
  held = '';
  if (lines !== '') write(lines);
}

/**
 * Sends one message as a JSON line: at once, with any lines held before it, in one write; or, with
 * `later`, held until the next line is sent or the event loop turns. False when it is not JSON.
 */
function send(message, later = false) {
  let line;
  try {
    line = `${stringify(message)}\n`;
  } catch {
    return false;
  }
  if (later) {
    held += line;
    flushing ??= setImmediateOf(flush);
    return true;
  }
  if (flushing !== null) {
    clearImmediateOf(flushing);
    flushing = null;
  }
  const lines = held + line;
  held = '';
  write(lines);
  return true;
}

const cut = (s, n) => (s.length > n ? `${s.slice(0, n - 3)}...` : s);
/** Reports one refused reach as an escape line, at once. */
function escape(method, url, reason) {
  send({ t: 'escape', method, url: cut(url, 500), reason });
}

// --- the network: the socket layer, sealed for good ---------------------------------------------
/** Requests from the harness (a pipe; also where the socket layer learns the pipe handle's prototype). */
const requests = new net.Socket({ fd: IN_FD, readable: true, writable: false });
requests.pause();
socketSeal.sealProcess({
  allow: Array.isArray(config.allow) ? config.allow : [],
  reporter: (e) => escape(StringOf(e.method), StringOf(e.url), StringOf(e.reason)),
  handles: [requests._handle],
});

// --- the model, through the harness (a network namespace: no interface to reach it by) -------------
/**
 * The model endpoints the harness carries requests to (namespace mode; none in socket mode, where
 * the process makes its own). A global `fetch` to one of them (the OpenAI SDK's, a planner's own)
 * goes over the channel: the harness makes the request, counts and records it, and answers. Every
 * other `fetch` goes to Node's, under the socket layer (which refuses and counts it); so does a raw
 * `http.request` to the model, which finds no interface in a namespace.
 */
const carriedOrigins = new Set(Array.isArray(config.model) ? config.model.map(StringOf) : []);
/** Requests sent to the harness, by number, waiting for its answer. */
const carried = new Map();
let nextCarried = 0;
if (carriedOrigins.size > 0) {
  const realFetch = globalThis.fetch;
  const RequestOf = globalThis.Request;
  const ResponseOf = globalThis.Response;
  const URLOf = URL;
  const BufferFrom = Buffer.from;
  const PromiseOf = Promise;
  const NO_BODY = new Set([101, 103, 204, 205, 304]);
  const carriedFetch = async function fetch(input, init) {
    const request = new RequestOf(input, init);
    let origin;
    try {
      origin = new URLOf(request.url).origin;
    } catch {
      origin = '';
    }
    if (!carriedOrigins.has(origin)) return apply(realFetch, globalThis, [input, init]);
    const body =
      request.method === 'GET' || request.method === 'HEAD'
        ? undefined
        : apply(BufferFrom, Buffer, [await request.arrayBuffer()]).toString('base64');
    const headers = [];
    request.headers.forEach((value, name) => headers.push([name, value]));
    const id = nextCarried++;
    const signal = request.signal;
    return new PromiseOf((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      carried.set(id, { resolve, reject, url: request.url });
      signal?.addEventListener('abort', () => {
        if (carried.delete(id)) reject(signal.reason);
      });
      send({ t: 'fetch', id, method: request.method, url: request.url, headers, ...(body ? { body } : {}) });
    }).then(
      (m) =>
        // A status that may carry no body (204, 304, ...) gets none, as Node's fetch gives it.
        new ResponseOf(m.body === undefined || NO_BODY.has(m.status) ? null : BufferFrom(m.body, 'base64'), {
          status: m.status,
          statusText: m.statusText,
          headers: m.headers,
        }),
    );
  };
  globalThis.fetch = carriedFetch;
}
// Which model endpoints are carried, for oneway's own model client in this process (a planner file
// built on a built-in LLM planner: harness/features/llm/direct-fetch.ts goes through `fetch` for them).
defineProperty(globalThis, Symbol.for('oneway.carried-model'), {
  value: Object.freeze([...carriedOrigins]),
  enumerable: false,
});
/** The harness's answer to a carried request (child-host.mjs hands it over): a response, or why there is none. */
function deliver(m) {
  const waiting = carried.get(m?.id);
  if (!waiting) return;
  carried.delete(m.id);
  if (typeof m.error === 'string') waiting.reject(new TypeError(`fetch failed: ${m.error}`));
  else waiting.resolve(m);
}

// --- what the permission model refuses, reported -------------------------------------------------
const reported = new WeakSetOf();
const refusedCodes = new Set(['ERR_ACCESS_DENIED', 'ERR_DLOPEN_DISABLED']);
/** Whether an error is the permission model's refusal not reported yet (reports it as seen). */
function refusal(e) {
  if (e === null || (typeof e !== 'object' && typeof e !== 'function')) return false;
  let code;
  try {
    code = e.code;
    if (e.oneway_seal === true) return false; // the socket layer reported it already
  } catch {
    return false;
  }
  if (!refusedCodes.has(code) || apply(WeakSetHas, reported, [e])) return false;
  apply(WeakSetAdd, reported, [e]);
  return true;
}

/** What a call was for (its first argument: a path, a URL, an fd), as text; never throws. */
function target(args) {
  try {
    const a = args[0];
    if (typeof a === 'string') return a;
    if (typeof a === 'number') return `fd ${a}`;
    if (a instanceof URL) return a.href;
    if (Buffer.isBuffer(a)) return a.toString();
    return '';
  } catch {
    return '';
  }
}

/** Copies a function's own properties (fs.realpathSync.native, promisify.custom) onto its wrapper. */
function keepProperties(from, to) {
  for (const key of ownKeys(from)) {
    if (key === 'prototype' || key === 'length' || key === 'name') continue;
    const d = getOwnPropertyDescriptor(from, key);
    if (d) defineProperty(to, key, d);
  }
  defineProperty(to, 'name', { value: from.name });
  return to;
}

/**
 * Wraps `obj[key]` so a refusal it throws, rejects with or passes to its callback is reported
 * (`what` says where; the call's first argument, a path, is the URL).
 */
function watch(obj, key, method, scheme, reason) {
  const orig = obj?.[key];
  if (typeof orig !== 'function') return;
  const report = (args, e) =>
    escape(method, `${scheme}${StringOf(key)}${args.length ? ` ${target(args)}` : ''}`, reasonOf(e, reason));
  const wrapped = function watched(...args) {
    const last = args.length - 1;
    if (last >= 0 && typeof args[last] === 'function') {
      const cb = args[last];
      args[last] = function watchedCallback(err, ...rest) {
        if (refusal(err)) report(args, err);
        return apply(cb, this, [err, ...rest]);
      };
    }
    let r;
    try {
      r = new.target ? construct(orig, args, new.target) : apply(orig, this, args);
    } catch (e) {
      if (refusal(e)) report(args, e);
      throw e;
    }
    if (r !== null && typeof r === 'object' && typeof r.then === 'function' && r instanceof Promise)
      r.then(undefined, (e) => {
        if (refusal(e)) report(args, e);
      });
    return r;
  };
  if (orig.prototype && /^[A-Z]/.test(StringOf(key))) wrapped.prototype = orig.prototype;
  obj[key] = keepProperties(orig, wrapped);
}

const FS_REASON = 'file system write outside the scratch directory (refused by the permission model)';
const FS_READ_REASON =
  "file system read outside the process's own module tree (refused by the permission model: other processes' /proc files included)";
/** A file system refusal's reason by what it refused (the permission model names it: FileSystemRead or FileSystemWrite). */
function reasonOf(e, reason) {
  try {
    return reason === FS_REASON && e.permission === 'FileSystemRead' ? FS_READ_REASON : reason;
  } catch {
    return reason;
  }
}
// Not the watchers: they only read, and unwatchFile finds a listener by identity (a wrapped one is another).
const READ_ONLY = new Set(['watch', 'watchFile', 'unwatchFile']);
for (const key of Object.keys(fs))
  if (typeof fs[key] === 'function' && /^[a-z]/.test(key) && !READ_ONLY.has(key))
    watch(fs, key, 'FS', 'fs:', FS_REASON);
for (const key of Object.keys(fs.promises))
  if (typeof fs.promises[key] === 'function' && !READ_ONLY.has(key))
    watch(fs.promises, key, 'FS', 'fs:promises.', FS_REASON);
const childProcess = require('node:child_process');
for (const key of Object.keys(childProcess))
  if (typeof childProcess[key] === 'function' && /^[a-z]/.test(key))
    watch(childProcess, key, 'PROCESS', 'child_process:', 'child process (refused by the permission model)');
watch(process, 'dlopen', 'ADDON', 'process:', 'native addon (refused by the permission model)');
watch(process, 'binding', 'BINDING', 'process:', "Node's internal binding (refused by the permission model)");
watch(
  require('node:worker_threads'),
  'Worker',
  'WORKER',
  'worker_threads:',
  'worker thread (refused by the permission model)',
);
watch(require('node:wasi'), 'WASI', 'WASI', 'wasi:', 'WASI instance (refused by the permission model)');
watch(v8, 'writeHeapSnapshot', 'FS', 'v8:', FS_REASON);
if (process.report) watch(process.report, 'writeReport', 'FS', 'process.report:', FS_REASON);
const inspector = require('node:inspector');
for (const key of ['open', 'waitForDebugger'])
  watch(inspector, key, 'INSPECTOR', 'inspector:', 'the inspector (refused by the permission model)');
for (const key of ['connect', 'connectToMainThread'])
  watch(
    inspector.Session.prototype,
    key,
    'INSPECTOR',
    'inspector:Session.',
    'the inspector (refused by the permission model)',
  );

// --- what the permission model leaves open, refused here -------------------------------------------
function denied(message) {
  return Object.assign(new Error(`${message} (oneway seal: a planner process reaches nothing outside itself)`), {
    code: 'ERR_ACCESS_DENIED',
    oneway_seal: true,
  });
}
/** Whether a pid names this process (or its own process group, which holds only it). */
const self = (p) => {
  const n = Number(p);
  return n === pid || n === 0 || n === -pid;
};
const UV_EPERM = -1;
const rawKill = process._kill;
process._kill = function sealedKill(target, signal) {
  if (!self(target)) {
    escape('SIGNAL', `pid:${StringOf(target)}`, 'signal to another process');
    return UV_EPERM;
  }
  return apply(rawKill, process, [target, signal]);
};
const rawKillApi = process.kill;
process.kill = function kill(target, signal) {
  if (!self(target)) {
    escape('SIGNAL', `pid:${StringOf(target)}`, 'signal to another process');
    throw denied(`kill ${StringOf(target)}`);
  }
  return apply(rawKillApi, process, [target, signal]);
};
for (const key of ['_debugProcess', '_debugEnd']) {
  if (typeof process[key] !== 'function') continue;
  process[key] = function sealedDebug(target) {
    escape('INSPECTOR', `pid:${StringOf(target)}`, "a process's inspector (activated by signal)");
    throw denied(`${key} ${StringOf(target)}`);
  };
}
const setPriority = os.setPriority;
os.setPriority = function sealedSetPriority(...args) {
  const who = args.length >= 2 ? args[0] : 0;
  if (!self(who)) {
    escape('PROCESS', `pid:${StringOf(who)}`, "another process's priority");
    throw denied(`setPriority ${StringOf(who)}`);
  }
  return apply(setPriority, os, args);
};
if (typeof mod.register === 'function') {
  mod.register = function register(specifier) {
    escape(
      'LOADER',
      `module:register ${cut(StringOf(specifier), 200)}`,
      'loader hooks off the thread (module.register)',
    );
    throw denied('module.register');
  };
}
require('node:module').syncBuiltinESMExports();

module.exports = {
  /** The channel, for the process's host (runner/child-host.mjs), taken once before any module loads. */
  channel: { send, requests, parse, init: config.init, exit: reallyExit, deliver },
};
