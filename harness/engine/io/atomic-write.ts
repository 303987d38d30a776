/**
 * Files that are either the old version or the new one, never half of either:
 * the text goes to a temporary file in the same directory, is flushed to disk
 * (fsync), and is renamed over the target (atomic on POSIX file systems); the
 * directory is then fsynced where the platform allows it, so the rename
 * survives a crash. A write that fails (a full disk, a read-only mount) leaves
 * the target as it was and removes its temporary file.
 *
 * File-system failures are the user's to fix (space, permissions, a path that
 * is a file): `outputError` turns them into a `UsageError` that names the path,
 * the cause and what to do, which the commands print with exit status 2.
 */
import * as fs from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { UsageError } from '../../core/errors.ts';

/**
 * The file-system calls the writer makes, as a seam: tests replace one of them
 * (e.g. `writeSync` throwing ENOSPC) to prove that a failed write loses nothing.
 */
export const atomicFs = {
  openSync: fs.openSync,
  writeSync: fs.writeSync,
  fsyncSync: fs.fsyncSync,
  closeSync: fs.closeSync,
  renameSync: fs.renameSync,
  unlinkSync: fs.unlinkSync,
  linkSync: fs.linkSync,
  mkdirSync: fs.mkdirSync,
};

let counter = 0;

/**
 * Writes `text` to `path` atomically (see the module comment). Throws the file-system error as is.
 * `text` may come in pieces (a large file written as it is made, never whole in memory).
 */
export function writeFileAtomic(path: string, text: string | Iterable<string>): void {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${++counter}.tmp`);
  let fd: number | undefined;
  try {
    fd = atomicFs.openSync(tmp, 'wx', 0o644);
    for (const piece of typeof text === 'string' ? [text] : text) {
      const data = Buffer.from(piece, 'utf8');
      for (let at = 0; at < data.length;) at += atomicFs.writeSync(fd, data, at, data.length - at);
    }
    atomicFs.fsyncSync(fd);
    atomicFs.closeSync(fd);
    fd = undefined;
    atomicFs.renameSync(tmp, path);
  } catch (e) {
    if (fd !== undefined) {
      try {
        atomicFs.closeSync(fd);
      } catch {
        /* already failing */
      }
    }
    try {
      atomicFs.unlinkSync(tmp);
    } catch {
      /* never created, or already renamed */
    }
    throw e;
  }
  syncDir(dir);
}

/** fsync a directory so a rename in it is durable; a no-op where directories cannot be opened (Windows). */
function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    /* EISDIR/EPERM/EINVAL on platforms without directory fsync */
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

const CAUSES: Record<string, { cause: string; hint: string }> = {
  ENOSPC: { cause: 'no space left on the device', hint: 'free some space or choose another --out' },
  EDQUOT: { cause: 'disk quota exceeded', hint: 'free some space or choose another --out' },
  EACCES: { cause: 'permission denied', hint: 'choose a directory you can write to with --out' },
  EPERM: { cause: 'operation not permitted', hint: 'choose a directory you can write to with --out' },
  EROFS: { cause: 'read-only file system', hint: 'choose a writable directory with --out' },
  EISDIR: { cause: 'it is a directory', hint: 'remove or rename that directory, or choose another --out' },
  ENOTDIR: {
    cause: 'a part of the path is a file, not a directory',
    hint: '--out must name a directory (or a path where one can be created)',
  },
  EEXIST: {
    cause: 'it is a file, not a directory',
    hint: '--out must name a directory (or a path where one can be created)',
  },
  ENAMETOOLONG: { cause: 'the path is too long', hint: 'choose a shorter --out' },
  ELOOP: {
    cause: 'it is a symbolic link, and oneway follows none inside --out',
    hint: 'remove the link (oneway writes only real files there), or choose another --out',
  },
  EMFILE: { cause: 'too many open files', hint: 'raise the limit (ulimit -n) or lower --concurrency' },
  EIO: { cause: 'an input/output error on the device', hint: 'check the disk, or choose another --out' },
};

/** The file-system error codes `outputError` explains (anything else stays an internal error). */
export function isOutputFailure(e: unknown): e is NodeJS.ErrnoException {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && code in CAUSES;
}

/**
 * A file-system failure while writing `path`, as the user's error (exit 2):
 * `cannot write PATH: CAUSE (CODE)` with a hint; `kept` adds what is intact.
 * Anything that is not such a failure is returned unchanged.
 */
export function outputError(e: unknown, path: string, kept?: string): unknown {
  if (e instanceof UsageError || !isOutputFailure(e)) return e;
  const known = CAUSES[e.code as string] as { cause: string; hint: string };
  const err = new UsageError(
    `cannot write ${path}: ${known.cause} (${e.code})`,
    `${known.hint}${kept ? `; ${kept}` : ''}`,
  );
  (err as UsageError & { cause?: unknown }).cause = e;
  return err;
}

/** Creates `dir` (and its parents) or explains why it cannot be (see `outputError`). */
export function ensureDir(dir: string): void {
  try {
    atomicFs.mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw outputError(e, dir);
  }
}

/**
 * Refuses to write `path` when it, or a directory between `root` and it, is a symbolic link: what
 * oneway writes under an output directory goes to real files there, never through a link planted in
 * it to somewhere else. `root` itself may be a link (an `--out` naming a linked directory works).
 * A UsageError (exit 2) names the link.
 *
 * @example
 * refuseLinks('reports/latest', 'reports/latest/runs/a/gated-t1.jsonl') // throws if runs/ or runs/a/ or the file is a link
 */
export function refuseLinks(root: string, path: string): void {
  const rel = relative(root, path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return;
  let at = root;
  for (const part of rel.split(sep)) {
    at = join(at, part);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(at);
    } catch {
      return; // nothing there yet, nor below it
    }
    if (st.isSymbolicLink())
      throw new UsageError(
        `cannot write ${path}: ${at} is a symbolic link, and oneway follows none inside --out`,
        CAUSES.ELOOP?.hint,
      );
  }
}

/**
 * Flags that open a file for writing (created, or truncated) and refuse a symbolic link in its
 * place (ELOOP); where the platform has no O_NOFOLLOW, `refuseLinks` is the check.
 */
export const WRITE_NO_FOLLOW: number =
  fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | (fs.constants.O_NOFOLLOW ?? 0);
