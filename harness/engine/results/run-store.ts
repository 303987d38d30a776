/**
 * The finished runs of an evaluation while it runs: each run's scores stay in memory (what the
 * summary, the comparisons and the gates read), and its JSON text, findings and record path
 * included, goes to a scratch file in the results directory, from which each checkpoint of
 * `results.json` copies it and which gives the whole runs back at the end. A large evaluation's
 * memory then grows by a few hundred bytes a run, not a kilobyte (npm run bench, memory rows).
 *
 * The scratch file is removed as soon as it is open where the platform allows it (POSIX), so a
 * crash leaves nothing behind; elsewhere when the store is closed. A run whose text holds a secret
 * stays whole in memory instead (nothing unredacted is written), as does every run once the
 * scratch file has failed (a full disk): the results stay right, only larger in memory.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { redact } from '../../util/secrets.ts';
import type { RunResult } from './types.ts';

/** What a held run keeps in memory in place of its findings (no scoring reads them). */
const NO_FINDINGS: RunResult['findings'] = Object.freeze([]) as unknown as RunResult['findings'];
/** Bytes read from the scratch file at once: runs finish about in job order, so the next run is usually in it. */
const READ_AHEAD = 64 * 1024;

let counter = 0;

/** `into` with `from` copied to its start. */
function grown<T extends Float64Array | Uint32Array>(from: T, into: T): T {
  into.set(from);
  return into;
}

export class RunStore {
  private fd: number | undefined;
  /** Where the file still has a name (until close): only where it could not be removed while open. */
  private named: string | undefined;
  /** Set once a write has failed: later runs are held whole. */
  private full = false;
  private end = 0;
  /** Each spilled run's row, and its slot: where its text is in the scratch file, `bytes[slot]` from `at[slot]`. */
  private readonly slots = new Map<RunResult, number>();
  private at = new Float64Array(1024);
  private bytes = new Uint32Array(1024);
  /** The last bytes read: `windowBytes` of `buffer`, from `windowAt` in the file. */
  private buffer = Buffer.alloc(0);
  private windowAt = 0;
  private windowBytes = 0;

  constructor(dir: string) {
    const path = join(dir, `.runs.${process.pid}.${++counter}.tmp`);
    try {
      this.fd = fs.openSync(path, 'wx+', 0o600);
    } catch {
      return; // runs are then held whole in memory
    }
    try {
      fs.unlinkSync(path);
    } catch {
      this.named = path;
    }
  }

  /**
   * What to keep of a finished run: a copy without its findings and record path, their text on
   * disk; or the run itself when it cannot go there.
   */
  hold(run: RunResult): RunResult {
    if (this.fd === undefined || this.full) return run;
    const text = JSON.stringify(run, null, 2);
    if (redact(text) !== text) return run;
    const data = Buffer.from(text, 'utf8');
    try {
      for (let at = 0; at < data.length;) at += fs.writeSync(this.fd, data, at, data.length - at, this.end + at);
    } catch {
      this.full = true;
      return run;
    }
    // The same keys in the same order (results.json's), the findings and record left for the text.
    const row = { ...run, record: '', findings: NO_FINDINGS };
    const slot = this.slots.size;
    if (slot === this.at.length) {
      this.at = grown(this.at, new Float64Array(2 * slot));
      this.bytes = grown(this.bytes, new Uint32Array(2 * slot));
    }
    this.at[slot] = this.end;
    this.bytes[slot] = data.length;
    this.slots.set(row, slot);
    this.end += data.length;
    return row;
  }

  /**
   * `JSON.stringify(run, null, 2)` of the run a row was kept for, read back; undefined for
   * anything else (the results writer's `textOf`).
   */
  readonly textOf = (value: unknown): string | undefined => {
    const slot = this.slots.get(value as RunResult);
    return slot === undefined ? undefined : this.read(this.at[slot] as number, this.bytes[slot] as number);
  };

  /** The run a row was kept for, whole again (its findings as they were: plain JSON data). */
  whole(row: RunResult): RunResult {
    const text = this.textOf(row);
    if (text === undefined) return row;
    const { record, findings } = JSON.parse(text) as Pick<RunResult, 'record' | 'findings'>;
    return { ...row, record, findings };
  }

  /** Closes the scratch file (and removes it, where it still has a name): rows kept until then cannot be made whole after. */
  close(): void {
    if (this.fd === undefined) return;
    try {
      fs.closeSync(this.fd);
    } catch {
      /* already closed */
    }
    this.fd = undefined;
    if (this.named) {
      try {
        fs.unlinkSync(this.named);
      } catch {
        /* gone already */
      }
    }
  }

  private read(at: number, bytes: number): string {
    if (at < this.windowAt || at + bytes > this.windowAt + this.windowBytes) {
      if (this.fd === undefined) throw new Error("the evaluation's scratch file was closed before its runs were read");
      const size = Math.max(bytes, READ_AHEAD);
      if (this.buffer.length < size) this.buffer = Buffer.alloc(size);
      let got = 0;
      while (got < size) {
        const n = fs.readSync(this.fd, this.buffer, got, size - got, at + got);
        if (n === 0) break;
        got += n;
      }
      if (got < bytes) throw new Error("the evaluation's scratch file is shorter than what was written to it");
      this.windowAt = at;
      this.windowBytes = got;
    }
    return this.buffer.toString('utf8', at - this.windowAt, at - this.windowAt + bytes);
  }
}
