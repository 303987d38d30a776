/**
 * Writes a run record as JSONL, one event per line, each written through to
 * the file as it happens: a crash loses nothing that finished.
 */
import { closeSync, mkdirSync, open as fsOpen, openSync, writeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { redact } from '../../util/secrets.ts';
import { refuseLinks, WRITE_NO_FOLLOW } from '../io/atomic-write.ts';
import type { RecordEvent } from '../../core/record.ts';

export interface RecordSink {
  write(event: RecordEvent): void;
  close(): void;
}

/**
 * Directories this process made for records (made once, not once per run), up to 1,024 of them: an
 * evaluation runs one scenario's planners and trials one after another, so a large one (4,000
 * scenarios) needs no more, and its memory does not grow with its scenarios.
 */
const made = new Set<string>();
const MADE_MAX = 1024;

/** How a record's file is created: off the main thread (libuv's pool), or on it at once. */
const CREATE = {
  async: {
    mkdir: (dir: string) => mkdir(dir, { recursive: true }),
    open: (path: string) =>
      new Promise<number>((resolve, reject) =>
        fsOpen(path, WRITE_NO_FOLLOW, 0o644, (e, fd) => (e ? reject(e) : resolve(fd))),
      ),
  },
  sync: {
    mkdir: (dir: string) => void mkdirSync(dir, { recursive: true }),
    open: (path: string) => openSync(path, WRITE_NO_FOLLOW, 0o644),
  },
};

/**
 * A record's sink, its directory made and its file created; events are then written through as
 * fileSink writes them. By default the file is created off the main thread (libuv's pool): an
 * evaluation creates a file per run, and at --concurrency=128 creating them in turn on the main
 * thread held back every run in flight (npm run bench, LLM-bound case). `sync` creates it at once,
 * for a caller with one run at a time: there nothing else can use the wait, and the pool's round
 * trips (a directory made is several) left the main thread idle ~15% of a serial evaluation.
 * Under `root` (the output directory) no symbolic link is followed: a link at the record's path,
 * or in place of a directory on the way to it, is refused (io/atomic-write.ts: refuseLinks).
 */
export async function openFileSink(path: string, opts: { sync?: boolean; root?: string } = {}): Promise<RecordSink> {
  const create = opts.sync ? CREATE.sync : CREATE.async;
  const dir = dirname(path);
  if (opts.root !== undefined) refuseLinks(opts.root, dir);
  if (!made.has(dir)) {
    await create.mkdir(dir);
    if (made.size >= MADE_MAX) made.clear();
    made.add(dir);
    return sinkOn(await create.open(path));
  }
  try {
    return sinkOn(await create.open(path));
  } catch (e) {
    // Removed since (a test's temporary directory, reused): made again.
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    await create.mkdir(dir);
    return sinkOn(await create.open(path));
  }
}

function sinkOn(fd: number): RecordSink {
  let open = true;
  return {
    write(event) {
      if (open) writeSync(fd, `${redact(JSON.stringify(event))}\n`);
    },
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

/** For fuzzing and tests: keeps events in memory only. */
export function memorySink(): RecordSink & { events: RecordEvent[] } {
  const events: RecordEvent[] = [];
  return { events, write: (e) => void events.push(e), close() {} };
}
