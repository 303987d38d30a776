/**
 * Writes a run record as JSONL, one event per line, each written through to
 * the file as it happens: a crash loses nothing that finished.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { redact } from '../util/secrets.ts';
import type { RecordEvent } from './events.ts';

export interface RecordSink {
  write(event: RecordEvent): void;
  close(): void;
}

/** Directories this process made for records (made once, not once per run); bounded. */
const made = new Set<string>();

function openRecord(path: string): number {
  const dir = dirname(path);
  if (!made.has(dir)) {
    mkdirSync(dir, { recursive: true });
    if (made.size >= 10_000) made.clear();
    made.add(dir);
    return openSync(path, 'w');
  }
  try {
    return openSync(path, 'w');
  } catch (e) {
    // Removed since (a test's temporary directory, reused): made again.
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    mkdirSync(dir, { recursive: true });
    return openSync(path, 'w');
  }
}

export function fileSink(path: string): RecordSink {
  const fd = openRecord(path);
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
