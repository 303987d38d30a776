/**
 * Journals as sessions: what `oneway recover` (and anything else that scores
 * real traffic) reads when given journals or directories.
 *
 * One `mcpServers` entry starts a guard per client window, each with the same
 * `--journal=JOURNAL`. The first guard writes JOURNAL itself; a guard that
 * finds it held by another live guard writes a session journal of its own,
 * `JOURNAL.d/<started>-<run id>.jsonl` (`sessionJournalPath`). So a journal
 * path names its file and its session directory together: reading JOURNAL
 * reads both. A directory given on its own is read as its `*.jsonl` files.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { RunStartEvent } from '../../core/record.ts';
import { readRecord, type ParsedRecord, type RecordIssue } from './reader.ts';

/** The directory of the session journals written beside `journal` by guards that found it in use. */
export const sessionJournalDir = (journal: string): string => `${journal}.d`;

/** A new session journal's path for a guard whose journal is in use: named by its start and run id, so it sorts by time. */
export function sessionJournalPath(journal: string, start: Pick<RunStartEvent, 'run_id' | 'journal'>): string {
  const when = (start.journal?.started_at ?? '').replace(/[:.]/g, '-');
  return join(sessionJournalDir(journal), `${when}-${start.run_id.slice(0, 8)}.jsonl`);
}

/** The `*.jsonl` files under a directory, recursively, in name order. */
const jsonlIn = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((d) =>
      d.isDirectory() ? jsonlIn(join(dir, d.name)) : d.isFile() && d.name.endsWith('.jsonl') ? [join(dir, d.name)] : [],
    );

/**
 * The files `paths` name: a file, then its session journals (`FILE.d/*.jsonl`, when there are any);
 * a directory, the `*.jsonl` files under it (recursively). Each file once, in the order given.
 */
export function journalFiles(paths: readonly string[]): string[] {
  const out: string[] = [];
  const add = (f: string) => {
    if (!out.includes(f)) out.push(f);
  };
  for (const p of paths) {
    let dir = false;
    try {
      dir = statSync(p).isDirectory();
    } catch {
      // missing: readRecord says so
    }
    if (dir) {
      for (const f of jsonlIn(p)) add(f);
      continue;
    }
    add(p);
    const sessions = sessionJournalDir(p);
    if (existsSync(sessions) && statSync(sessions).isDirectory()) for (const f of jsonlIn(sessions)) add(f);
  }
  return out;
}

/** One journal (or run record) read: its file and what it says, its cut and unreadable lines included. */
export interface JournalSession {
  file: string;
  record: ParsedRecord;
}

/**
 * Reads every journal `paths` name (see `journalFiles`) into sessions. A file that cannot be read
 * at all is an issue (an error, with its file), never a silent gap; the lines a readable one could
 * not parse are in its record (`warnings`, `unreadable`).
 *
 * @example
 * const { sessions, issues } = readJournalSessions(['oneway-journal.jsonl']);
 * for (const s of sessions) console.log(s.file, s.record.calls.length, s.record.unreadable.length);
 */
export function readJournalSessions(paths: readonly string[]): { sessions: JournalSession[]; issues: RecordIssue[] } {
  const sessions: JournalSession[] = [];
  const issues: RecordIssue[] = [];
  const files = journalFiles(paths);
  for (const p of paths)
    if (existsSync(p) && statSync(p).isDirectory() && !files.some((f) => f.startsWith(join(p, '/'))))
      issues.push({
        severity: 'error',
        file: p,
        line: 0,
        message: 'the directory holds no .jsonl journal',
        hint: 'give a journal, or the directory its guards wrote (JOURNAL.d)',
      });
  for (const file of files) {
    const r = readRecord(file);
    if (r.ok) sessions.push({ file, record: r.value });
    else issues.push(...r.issues);
  }
  return { sessions, issues };
}

/**
 * The records (run records, guard journals) that `paths` name, relative to `cwd`, as `journalFiles`
 * expands them, each named as it was given (relative to `cwd` when under it): what `oneway audit`
 * reads. A record that cannot be read is an issue; the others are read all the same.
 *
 * @example
 * const { records, issues } = readRecords(['journals/', 'old.jsonl'], process.cwd());
 */
export function readRecords(
  paths: readonly string[],
  cwd: string,
): { records: ParsedRecord[]; issues: RecordIssue[]; files: string[] } {
  const named = (f: string): string => {
    const rel = relative(cwd, f);
    return rel.startsWith('..') || isAbsolute(rel) ? f : rel;
  };
  const { sessions, issues } = readJournalSessions(paths.map((p) => resolve(cwd, p)));
  const records = sessions.map((s) => ({ ...s.record, file: named(s.file) }));
  return {
    records,
    issues: [
      ...issues.map((i) => ({ ...i, file: named(i.file) })),
      ...records.flatMap((r) => r.warnings.map((w) => ({ ...w, file: r.file }))),
    ],
    files: records.map((r) => r.file),
  };
}
