// Worker entry for `npm run fuzz -- --workers=N`: registers tsx's TypeScript loader in this thread,
// then runs the TypeScript worker (a worker does not inherit the main thread's loader hooks on Node 20).
import { register } from 'tsx/esm/api';

register();
await import('./worker-main.ts');
