/** Types of socket-seal.cjs: the seal's socket layer (see that file). */
import type { Worker, WorkerOptions } from 'node:worker_threads';

export interface SocketEscape {
  method: string;
  url: string;
  reason: string;
}

export interface SocketSeal {
  install(): SocketSeal;
  sealProcess(o: {
    allow: { host: string; port: number }[];
    reporter: (e: SocketEscape) => void;
    handles: unknown[];
  }): void;
  arm(): void;
  disarm(): void;
  lock(): void;
  readonly armed: boolean;
  readonly locked: boolean;
  allow(origin: string): void;
  allowed(): { host: string; port: number }[];
  setReporter(fn: (e: SocketEscape) => void): void;
  readonly reportsToParent: boolean;
  readonly reported: number;
  report(e: SocketEscape): void;
  sealedWorker(
    filename: string | URL,
    options?: WorkerOptions,
    extra?: { locked?: boolean; allow?: { host: string; port: number }[]; route?: (e: SocketEscape) => void },
  ): Worker;
  readonly WORKER_KEY: string;
}

declare const seal: SocketSeal;
export = seal;
