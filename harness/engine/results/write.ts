import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../core/errors.ts';
import { atomicFs, ensureDir, outputError, refuseLinks, writeFileAtomic } from '../io/atomic-write.ts';
import { prettyJsonPieces } from '../../util/json.ts';
import { checkJsonFile } from '../../util/json-check.ts';
import { redactingStream } from '../../util/secrets.ts';
import { RESULTS_SCHEMA_VERSION, type Results } from './types.ts';

const RESULTS_FILE = 'results.json';
/** The checkpoint before the current `results.json`, kept so a damaged file never costs the runs it held. */
export const PREVIOUS_RESULTS_FILE = 'results.json.prev';

/**
 * Results files this process wrote, with their identity when written: complete by construction, so
 * they need no re-reading before being kept, unless something else has changed them since.
 */
const writtenHere = new Map<string, string>();
function identity(path: string): string | undefined {
  try {
    const st = statSync(path);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return undefined;
  }
}

/**
 * Writes `DIR/results.json` (pretty, newline-terminated, so diffs of committed baselines read well).
 * Atomically (harness/engine/io/atomic-write.ts): a failed write leaves the previous file whole, and the
 * previous file is kept as `results.json.prev`. A file-system failure is a `UsageError` (exit 2)
 * naming the path and the cause; so is a symbolic link at either (io/atomic-write.ts: refuseLinks). `textOf` gives the JSON text of runs held on disk (results/run-store.ts).
 */
export function writeResults(outDir: string, results: Results, textOf?: (value: object) => string | undefined): void {
  ensureDir(outDir);
  const path = join(outDir, RESULTS_FILE);
  // A link planted at results.json (or its checkpoint) is refused, never written through or replaced.
  refuseLinks(outDir, path);
  refuseLinks(outDir, join(outDir, PREVIOUS_RESULTS_FILE));
  try {
    keepPrevious(outDir);
    writeFileAtomic(path, redacted(resultsText(results, textOf)));
  } catch (e) {
    throw outputError(
      e,
      path,
      existsSync(path) ? `${RESULTS_FILE} there still holds the last complete checkpoint` : undefined,
    );
  }
  const id = identity(path);
  if (id) writtenHere.set(path, id);
}

/**
 * `JSON.stringify(results, null, 2)` and a newline, in pieces (harness/util/json.ts): a large
 * evaluation's file (15 MB at 8,000 runs, 4 MB of it its scenarios and per-scenario outcomes) is
 * never a string, and a buffer of it, at once.
 */
function* resultsText(results: Results, textOf?: (value: object) => string | undefined): Generator<string> {
  yield* prettyJsonPieces(results, undefined, textOf);
  yield '\n';
}

/** The pieces with every secret redacted, as `redact` would the whole text (harness/util/secrets.ts). */
function* redacted(pieces: Iterable<string>): Generator<string> {
  const out: string[] = [];
  const stream = redactingStream((t) => out.push(t));
  for (const p of pieces) {
    stream.write(p);
    if (out.length > 0) yield out.splice(0).join('');
  }
  stream.end();
  if (out.length > 0) yield out.join('');
}

/** `results.json` becomes `results.json.prev` (a hard link, or a copy where links are not supported), if it is whole. */
function keepPrevious(outDir: string): void {
  const path = join(outDir, RESULTS_FILE);
  if (!existsSync(path)) return;
  // A damaged results.json must never replace a good .prev.
  const id = identity(path);
  if ((id === undefined || writtenHere.get(path) !== id) && !isWholeResultsFile(path)) return;
  const prev = join(outDir, PREVIOUS_RESULTS_FILE);
  const tmp = `${prev}.${process.pid}.tmp`;
  try {
    try {
      atomicFs.unlinkSync(tmp);
    } catch {
      /* none left over */
    }
    try {
      atomicFs.linkSync(path, tmp);
    } catch {
      copyFileSync(path, tmp);
    }
    atomicFs.renameSync(tmp, prev);
  } catch {
    // Best effort: the atomic write that follows still never truncates results.json.
    try {
      atomicFs.unlinkSync(tmp);
    } catch {
      /* nothing to clean */
    }
  }
}

/**
 * Whether `path` is a results file `readResults` would accept (one JSON text, `schema_version` this
 * one, `runs` a list, `config` an object), checked as it is read, without building it.
 */
function isWholeResultsFile(path: string): boolean {
  const check = checkJsonFile(path);
  if (!check?.end()) return false;
  const { top } = check;
  const config = top.get('config');
  return (
    Number(top.get('schema_version')) === RESULTS_SCHEMA_VERSION &&
    top.get('runs') === '[' &&
    (config === '{' || config === '[')
  );
}

function parseResultsFile(path: string): Results {
  let parsed: Results;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as Results;
  } catch (e) {
    throw new UsageError(
      `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      'pass directories written by oneway eval (each holds results.json)',
    );
  }
  if (parsed?.schema_version !== RESULTS_SCHEMA_VERSION)
    throw new UsageError(`${path} is not a oneway results file of schema_version ${RESULTS_SCHEMA_VERSION}`);
  if (!Array.isArray(parsed.runs) || typeof parsed.config !== 'object' || parsed.config === null)
    throw new UsageError(`${path} is incomplete: no runs or config`);
  return parsed;
}

export function readResults(dir: string): Results {
  return parseResultsFile(join(dir, RESULTS_FILE));
}

/**
 * The results an interrupted evaluation left in `dir`, for `--resume`: `results.json`, or when it is
 * damaged or missing, the last good checkpoint (`results.json.prev`) with a note saying so.
 */
export function readResultsForResume(dir: string): { results: Results; note?: string } {
  try {
    return { results: readResults(dir) };
  } catch (e) {
    const prev = join(dir, PREVIOUS_RESULTS_FILE);
    if (!existsSync(prev)) throw e;
    let results: Results;
    try {
      results = parseResultsFile(prev);
    } catch {
      throw e;
    }
    const why = e instanceof Error ? e.message : String(e);
    return {
      results,
      note: `${why}; resuming from the last good checkpoint, ${prev} (${results.runs.length} run${results.runs.length === 1 ? '' : 's'})`,
    };
  }
}
