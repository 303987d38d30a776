/**
 * One evaluation per output directory: `DIR/oneway.lock` holds the pid, the
 * process's start time and host, and when the evaluation started. It is
 * created atomically and complete (written to a temporary file opened with
 * `wx`, then hard-linked into place, which fails when a lock exists; where
 * links are not supported, the lock itself is created with `wx`).
 *
 * A lock whose process is gone (no such pid, or a pid reused by a process that
 * started at another time) is stale: it is taken over with a warning. A live
 * one refuses the second evaluation (exit 2) with a hint. The lock is released
 * when the evaluation ends, on `process.exit` (the second Ctrl-C) too.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../../core/errors.ts';
import { atomicFs, outputError } from '../io/atomic-write.ts';

export const LOCK_FILE = 'oneway.lock';

interface LockInfo {
  pid: number;
  /** When the process started (clock ticks since boot from /proc, Linux only): tells a reused pid apart. */
  process_start: string | null;
  host: string;
  started_at: string;
  command: string;
}

export interface OutLock {
  path: string;
  release(): void;
}

/** The start time of a process as the kernel records it, or null where /proc is not available. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime), counted after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether the process that wrote `info` is still running (on another host: assumed so, it cannot be checked). */
function lockHolderAlive(info: LockInfo): boolean {
  if (info.host !== hostname()) return true;
  try {
    process.kill(info.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  // The pid exists (or is not ours to signal): the same process only if it started when the lock says.
  if (info.process_start !== null) {
    const now = processStart(info.pid);
    if (now !== null && now !== info.process_start) return false;
  }
  return true;
}

function readLock(path: string): LockInfo | null {
  try {
    return parseLock(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

function parseLock(text: string): LockInfo | null {
  try {
    const v = JSON.parse(text) as Partial<LockInfo>;
    if (typeof v.pid !== 'number' || !Number.isInteger(v.pid) || v.pid <= 0) return null;
    return {
      pid: v.pid,
      process_start: typeof v.process_start === 'string' ? v.process_start : null,
      host: String(v.host ?? ''),
      started_at: String(v.started_at ?? ''),
      command: String(v.command ?? ''),
    };
  } catch {
    return null;
  }
}

const code = (e: unknown) => (e as NodeJS.ErrnoException).code;

/** Who holds a directory's lock, as `dirLockHolder` reads it. */
export interface DirLockHolder {
  /** The lock file. */
  path: string;
  /** What the lock says; null when it cannot be read (damaged: never a live oneway's, which writes it complete). */
  info: Pick<LockInfo, 'pid' | 'host' | 'started_at'> | null;
  /** Whether its process is still running (on another host: assumed so, it cannot be checked). */
  alive: boolean;
}

/**
 * The lock on `dir` as it stands, without taking it or writing anything there (`oneway merge`
 * reads parts that may be read only): null when there is none (or no such directory).
 *
 * @example
 * const held = dirLockHolder('reports/shard-1'); // { path, info: { pid, host, started_at }, alive: true }
 */
export function dirLockHolder(dir: string): DirLockHolder | null {
  const path = join(dir, LOCK_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (code(e) === 'ENOENT' || code(e) === 'ENOTDIR') return null;
    return { path, info: null, alive: false };
  }
  const info = parseLock(text);
  return { path, info, alive: info !== null && lockHolderAlive(info) };
}

/**
 * Takes the lock on `dir` (which must exist) or throws a `UsageError` when a live evaluation holds it.
 * `warn` hears about a stale lock taken over.
 */
export function lockOutDir(dir: string, opts: { command?: string; warn?: (message: string) => void } = {}): OutLock {
  return lockFile(join(dir, LOCK_FILE), {
    ...opts,
    subject: dir,
    holder: 'evaluation',
    instead: 'wait for it to finish or choose another --out',
  });
}

export interface LockFileOptions {
  command?: string;
  warn?: (message: string) => void;
  /** What the lock guards, in messages (default: the lock's path). */
  subject?: string;
  /** What holds such a lock, in messages (default: "process"). */
  holder?: string;
  /** What to do instead when a live process holds it. */
  instead?: string;
}

/**
 * Takes the lock file at `path` (its directory must exist), as `lockOutDir` takes a directory's, or
 * throws a `UsageError` when a live process holds it. `oneway guard` locks its journal so.
 */
export function lockFile(path: string, opts: LockFileOptions = {}): OutLock {
  const dir = dirname(path);
  const subject = opts.subject ?? path;
  const holderName = opts.holder ?? 'process';
  const info: LockInfo = {
    pid: process.pid,
    process_start: processStart(process.pid),
    host: hostname(),
    started_at: new Date().toISOString(),
    command: opts.command ?? 'oneway eval',
  };
  const text = `${JSON.stringify(info)}\n`;
  const tmp = join(dir, `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeNew(tmp, text);
  } catch (e) {
    throw outputError(e, dir);
  }
  try {
    for (let attempt = 0; ; attempt++) {
      if (tryLink(tmp, path, text)) break;
      const holder = readLock(path);
      if (holder && lockHolderAlive(holder)) {
        throw new UsageError(
          `${subject} is in use by another ${holderName} (pid ${holder.pid}${holder.host !== info.host ? ` on ${holder.host}` : ''}, started ${holder.started_at})`,
          `${opts.instead ?? 'wait for it to finish'}; if no ${holderName} is running there, delete ${path}`,
        );
      }
      if (attempt >= 3)
        throw new UsageError(
          `cannot take the lock ${path}: other processes keep taking it`,
          opts.instead ?? 'try again later',
        );
      // Stale: moved aside atomically (of two processes taking it over, one moves it), checked, then removed.
      const aside = `${path}.${process.pid}.stale`;
      try {
        atomicFs.renameSync(path, aside);
      } catch (e) {
        if (code(e) === 'ENOENT') continue;
        throw outputError(e, path);
      }
      const moved = readLock(aside);
      if (moved && lockHolderAlive(moved)) {
        // Another process took the lock over between our read and the move: give it back.
        try {
          atomicFs.linkSync(aside, path);
        } catch {
          /* it has a new holder already */
        }
        atomicFs.unlinkSync(aside);
        continue;
      }
      atomicFs.unlinkSync(aside);
      opts.warn?.(
        holder
          ? `took over a stale lock on ${subject}: its ${holderName} (pid ${holder.pid}, started ${holder.started_at}) is no longer running`
          : `took over an unreadable lock on ${subject} (${path})`,
      );
    }
  } finally {
    try {
      atomicFs.unlinkSync(tmp);
    } catch {
      /* linked and removed, or never made */
    }
  }

  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    // Only our own lock: never one a later evaluation took over.
    const now = readLock(path);
    if (now && now.pid === info.pid && now.started_at === info.started_at && now.host === info.host) {
      try {
        atomicFs.unlinkSync(path);
      } catch {
        /* already gone */
      }
    }
  };
  process.on('exit', release);
  return { path, release };
}

function writeNew(path: string, text: string): void {
  try {
    atomicFs.unlinkSync(path);
  } catch {
    /* none left over */
  }
  const fd = atomicFs.openSync(path, 'wx', 0o644);
  try {
    atomicFs.writeSync(fd, text);
    atomicFs.fsyncSync(fd);
  } finally {
    atomicFs.closeSync(fd);
  }
}

/** The lock, complete, at `path` if none is there: true when taken. */
function tryLink(tmp: string, path: string, text: string): boolean {
  try {
    atomicFs.linkSync(tmp, path);
    return true;
  } catch (e) {
    if (code(e) === 'EEXIST') return false;
    if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV'].includes(code(e) ?? '')) throw outputError(e, path);
  }
  // No hard links here: create the lock itself exclusively.
  try {
    const fd = atomicFs.openSync(path, 'wx', 0o644);
    try {
      atomicFs.writeSync(fd, text);
    } finally {
      atomicFs.closeSync(fd);
    }
    return true;
  } catch (e) {
    if (code(e) === 'EEXIST') return false;
    throw outputError(e, path);
  }
}
