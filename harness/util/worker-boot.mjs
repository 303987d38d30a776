// Worker entry for runOnWorkers (worker-pool.ts): registers tsx's TypeScript loader in this thread,
// then imports the worker module (a worker does not inherit the main thread's loader hooks on Node 20).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
