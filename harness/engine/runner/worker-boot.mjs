// Worker entry for runOnWorkers (worker-pool.ts): registers tsx's
// TypeScript loader in this thread when needed (below), then imports the worker module (a worker does not inherit the main
// thread's loader hooks on Node 20). These threads are started with sandbox/socket-seal.cjs preloaded
// (`--require`), so the seal is on before this line.
import { workerData } from 'node:worker_threads';

// TypeScript in this thread: oneway's own modules when it runs from source (the repository's scripts and
// tests), or a user's .ts planner or property module. Compiled oneway (dist/) loading .js/.mjs modules
// needs no loader: tsx is registered only when something here is TypeScript, and only if it is installed
// (otherwise Node's own type stripping, from 22.6, or the module's clear "failed to load").
const TS = /\.(c|m)?ts$/;
if (TS.test(workerData.entry) || workerData.modules.some((m) => TS.test(m))) {
  try {
    const [{ register: registerCjs }, { register }] = await Promise.all([import('tsx/cjs/api'), import('tsx/esm/api')]);
    // Both loaders: a .ts file outside any package (a user's planner in /tmp) loads as CommonJS.
    registerCjs();
    register();
  } catch (e) {
    if (TS.test(workerData.entry)) throw e;
  }
}
await import(workerData.entry);
