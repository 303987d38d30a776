/**
 * The guard's journal: a run record (JSONL, harness/core/record.ts) that
 * `oneway recover` reads as it reads any record. Every line is redacted as
 * every record is (harness/util/secrets.ts) and written through to the file
 * (`writeSync` on a file opened for appending) before the guard goes on: an
 * intent is in the file before its call is forwarded, an outcome before its
 * reply goes back, so a guard killed at any moment leaves a journal that says
 * what may have happened, and a power loss takes nothing it said it had.
 *
 * A line is written whole before the guard goes on, and an intent is synced to
 * the disk (`fdatasync`) before its call is forwarded: a short write (a full
 * disk takes what fits) or a failed one marks the journal broken, and the call
 * it was for is refused, never forwarded; every call after it too.
 *
 * One journal, one writer: it is locked (`JOURNAL.lock`) while a guard or a
 * `recover --apply` writes to it. A guard that finds its journal held by
 * another live guard (one `mcpServers` entry, two client windows) writes a
 * session journal of its own instead, `JOURNAL.d/<started>-<run id>.jsonl`
 * (engine/record/journals.ts), and says so; `oneway recover JOURNAL` reads
 * both. A guard started again on the same journal
 * continues it: it must enforce the same declarations, facts and policy
 * (another set begins a new journal), it learns back what the journal says
 * happened, and an intent left without an outcome is journaled as the
 * ambiguous failure it is (reader.ts `lostIntentCall`).
 */
import { closeSync, existsSync, fdatasyncSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../../core/errors.ts';
import type { CallEvent, RecordEvent, RunStartEvent } from '../../core/record.ts';
import { sessionJournalPath } from '../../engine/record/journals.ts';
import { formatRecordIssue, lostIntentCall, parseRecordText } from '../../engine/record/reader.ts';
import { lockFile, type OutLock } from '../../engine/results/lock.ts';
import { stableJson } from '../../util/json.ts';
import { redact } from '../../util/secrets.ts';

export interface OpenJournalOptions {
  /** Who takes the lock, for a second process's refusal. */
  command: string;
  warn?: (message: string) => void;
  /** Continue an existing journal only (recover --apply): a missing or empty one is an error. */
  existing?: boolean;
  /** How lines reach the disk (tests inject a disk that fills up). */
  writer?: JournalWriter;
  /**
   * A guard's journal, which guards started from one client configuration share: when another live
   * guard holds it, this one writes a session journal of its own beside it (see the module comment).
   */
  shared?: boolean;
}

/** How the journal writes a line and syncs it: the file system's calls, or a test's. */
export interface JournalWriter {
  /** Writes `data` at the end of the file; returns how many bytes were written (fewer on a full disk). */
  write(fd: number, data: Buffer): number;
  /** Syncs what was written to the disk. */
  sync(fd: number): void;
}

const FILE_WRITER: JournalWriter = {
  write: (fd, data) => writeSync(fd, data),
  sync: (fd) => fdatasyncSync(fd),
};

export class Journal {
  private fd: number | undefined;
  private steps: number;
  /** Why the journal can no longer be written, once a write failed: the guard then refuses every call. */
  broken: string | undefined;
  private readonly startedMs: number;

  private constructor(
    readonly path: string,
    readonly start: RunStartEvent,
    /** What the journal held when it was opened (the run_start included), lost intents answered. */
    readonly before: readonly RecordEvent[],
    fd: number,
    private readonly lock: OutLock,
    private readonly writer: JournalWriter,
  ) {
    this.fd = fd;
    let last = 0;
    for (const e of before)
      if (e.type === 'call' || e.type === 'intent' || e.type === 'settle') last = Math.max(last, e.step);
    this.steps = last;
    this.startedMs = Date.parse(start.journal?.started_at ?? '') || Date.now();
  }

  /**
   * Opens the journal at `path`: a new one begins with `start`; an existing one is continued when it
   * began with the same tools, facts and policy (a `UsageError` with a hint otherwise). Intents the
   * journal left without an outcome are answered now, as ambiguous failures.
   */
  static open(path: string, start: RunStartEvent | undefined, opts: OpenJournalOptions): Journal {
    const lockOf = (at: string) =>
      lockFile(`${at}.lock`, {
        command: opts.command,
        subject: at,
        holder: 'guard or recovery',
        instead: 'one process writes one journal: stop the other one, or give this one another --journal',
        ...(opts.warn ? { warn: opts.warn } : {}),
      });
    // A new journal's directory is made (`--journal=journals/memory.jsonl` in a fresh project); an
    // existing one (recover --apply, --settle) must be there.
    if (start && !opts.existing) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    else if (!existsSync(path))
      throw new UsageError(`${path} is empty or does not exist`, 'give the journal a guard wrote (--journal)');
    let lock: OutLock;
    try {
      lock = lockOf(path);
    } catch (e) {
      if (!(e instanceof UsageError) || !opts.shared || !start) throw e;
      // Another guard of the same configuration writes it: this session journals beside it.
      const own = sessionJournalPath(path, start);
      mkdirSync(dirname(own), { recursive: true, mode: 0o700 });
      opts.warn?.(`${e.message}: this session journals to ${own} (oneway recover ${path} reads both)`);
      return Journal.open(own, start, { ...opts, shared: false });
    }
    try {
      const text = existsSync(path) && statSync(path).size > 0 ? readFileSync(path, 'utf8') : undefined;
      if (text === undefined) {
        if (opts.existing || !start)
          throw new UsageError(`${path} is empty or does not exist`, 'give the journal a guard wrote (--journal)');
        const fd = openSync(path, 'a', 0o600);
        const j = new Journal(path, start, [start], fd, lock, opts.writer ?? FILE_WRITER);
        j.write(start);
        return j;
      }
      const read = parseRecordText(text, path);
      if (!read.ok)
        throw new UsageError(
          `${path} is not a journal: ${read.issues.map(formatRecordIssue).join('; ')}`,
          'give --journal a new file, or the journal a guard wrote',
        );
      const found = read.value.start;
      if (!found.journal)
        throw new UsageError(
          `${path} is the record of an evaluation, not a guard's journal`,
          'give --journal a new file; oneway recover reads evaluation records as they are',
        );
      if (start) {
        const differs = (
          [
            ['tools', stableJson(found.tools) !== stableJson(start.tools)],
            ['facts (--facts)', stableJson(found.initial_world) !== stableJson(start.initial_world)],
            ['policy', stableJson(found.journal.policy) !== stableJson(start.journal?.policy)],
            ['deployment', stableJson(found.deployment) !== stableJson(start.deployment)],
          ] as const
        ).filter(([, d]) => d);
        if (differs.length > 0)
          throw new UsageError(
            `${path} began with other ${differs.map(([w]) => w).join(', ')} than this guard enforces`,
            'a journal holds one set of declarations: give --journal a new file (keep this one for oneway recover)',
          );
      }
      const fd = openSync(path, 'a', 0o600);
      // A line cut short by a crash must not swallow the next one.
      if (!text.endsWith('\n')) writeSync(fd, '\n');
      const answered = new Set(read.value.events.flatMap((e) => (e.type === 'call' ? [e.step] : [])));
      const lost = read.value.events.flatMap((e): CallEvent[] =>
        e.type === 'intent' && !answered.has(e.step) ? [lostIntentCall(e)] : [],
      );
      const j = new Journal(path, found, [...read.value.events, ...lost], fd, lock, opts.writer ?? FILE_WRITER);
      for (const c of lost) j.write(c);
      for (const w of read.value.warnings) opts.warn?.(formatRecordIssue(w));
      return j;
    } catch (e) {
      lock.release();
      throw e;
    }
  }

  /** The next step number (steps are never reused, across restarts of the guard). */
  nextStep(): number {
    return ++this.steps;
  }

  /** The last step number given. */
  get lastStep(): number {
    return this.steps;
  }

  /** Real milliseconds since the journal began. */
  now(): number {
    return Math.max(0, Date.now() - this.startedMs);
  }

  /**
   * Writes one event, redacted and whole; a failure (a short write too) marks the journal broken and
   * throws. An intent (what must be on the disk before its call is forwarded) and a settle are
   * synced too (`fdatasync`); an outcome is not: lost with a power cut, its intent stands and reads
   * as the uncertain call it then is, and a read-only call's changed nothing.
   */
  write(event: RecordEvent, sync = event.type === 'intent' || event.type === 'settle'): void {
    if (this.broken) throw new Error(this.broken);
    try {
      if (this.fd === undefined) throw new Error('it is closed');
      const data = Buffer.from(`${redact(JSON.stringify(event))}\n`);
      const written = this.writer.write(this.fd, data);
      if (written !== data.length)
        throw new Error(`only ${written} of ${data.length} bytes of a line were written (is the disk full?)`);
      if (sync) this.writer.sync(this.fd);
    } catch (e) {
      this.broken = `the journal ${this.path} cannot be written: ${(e as Error).message}`;
      throw new Error(this.broken, { cause: e });
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.lock.release();
  }
}
