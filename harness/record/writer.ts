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

export function fileSink(path: string): RecordSink {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'w');
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
