// Worker entry: registers tsx's TypeScript loader in this thread, then runs the TypeScript worker.
// (A worker does not inherit the main thread's loader hooks on Node 20.)
import { register } from 'tsx/esm/api';

register();
await import('./worker-main.ts');
