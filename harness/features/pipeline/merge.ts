/**
 * What a merge is (`oneway merge`): an evaluation's last steps (evaluation.ts) over results that
 * ran elsewhere, the outputs of `oneway eval --shard=i/n`, or of evaluations of other planners on
 * the same scenarios and seed (`oneway serve`'s sessions among them):
 *
 *   no part held by a live evaluation → each part's results.json → one results
 *   (engine/runner/shard.ts) → the line-up checks → the --out lock → the parts' run records →
 *   analyse → results.json and the reports
 *
 * The line-up checks, the lock and the writing are the evaluation's own (`checkLineUp`, `lockOut`,
 * `writeResults`): a gate or a baseline means in a merge what it means in an evaluation.
 */
import { cpSync, existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../core/errors.ts';
import { dirLockHolder } from '../../engine/results/lock.ts';
import type { Results } from '../../engine/results/types.ts';
import { readResults } from '../../engine/results/write.ts';
import { mergeResults } from '../../engine/runner/shard.ts';
import { checkLineUp } from '../request/eval.ts';
import type { MergeRequest } from '../request/merge.ts';
import { lockOut, writeResults, type ReportConsole } from './evaluation.ts';

/** How a merge is shown: its warnings (a stale lock on a part, a stale --out lock taken over), and where the reporters that print write. */
export interface MergeDisplay {
  warning?(message: string): void;
  console: ReportConsole;
}

/**
 * Merges the request's parts into --out: results.json (the merged results, analysed as the
 * request asks), the parts' run records under runs/, and the reports. A usage error (a part a live
 * evaluation still writes, parts that do not merge, a baseline planner or a gate's planner the
 * parts lack, a live lock on --out) throws a UsageError before anything is written.
 *
 * @example
 * const { results, written } = await merged(request, { command: 'oneway merge' }, { console });
 */
export async function merged(
  request: MergeRequest,
  o: { command: string },
  display: MergeDisplay,
): Promise<{ results: Results; written: string[] }> {
  checkPartsFree(request.parts, request.outDir, display);
  const ran = mergeResults(request.parts.map(readResults));
  checkLineUp(ran.config.planners, request);
  const { outDir } = request;
  const { lock, warnings } = await lockOut(outDir, o.command);
  try {
    for (const m of warnings) display.warning?.(m);
    for (const d of request.parts) {
      if (d !== outDir && existsSync(join(d, 'runs')))
        cpSync(join(d, 'runs'), join(outDir, 'runs'), { recursive: true });
    }
    return await writeResults(ran, request, display.console);
  } finally {
    lock.release();
  }
}

/**
 * Refuses parts that a live evaluation (or server) still writes: read now, a part is its last
 * checkpoint, with runs missing or marked interrupted, and would merge without a word. Its lock is
 * only read, never taken (a part may be read only). A stale lock (its process gone) is said as a
 * warning: what the part holds is all it will hold. --out as a part is left to its own lock.
 */
function checkPartsFree(parts: readonly string[], outDir: string, display: MergeDisplay): void {
  const held: string[] = [];
  const locks: string[] = [];
  for (const d of parts) {
    if (d === outDir) continue;
    const holder = dirLockHolder(d);
    if (!holder) continue;
    const { info } = holder;
    if (holder.alive && info) {
      const on = info.host !== hostname() ? ` on ${info.host}` : '';
      held.push(`part ${d} is still being written by an evaluation (pid ${info.pid}${on}, started ${info.started_at})`);
      locks.push(holder.path);
    } else
      display.warning?.(
        info
          ? `part ${d} has a stale lock: its evaluation (pid ${info.pid}, started ${info.started_at}) is no longer running; merging the results it left`
          : `part ${d} has an unreadable lock (${holder.path}); merging the results it holds`,
      );
  }
  if (held.length)
    throw new UsageError(
      held.join('; '),
      `wait for ${held.length > 1 ? 'them' : 'it'} to finish, then merge (merged now, a part is read at its last checkpoint, runs missing or marked interrupted); if no evaluation is running there, delete ${locks.join(', ')}`,
    );
}
