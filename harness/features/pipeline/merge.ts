/**
 * What a merge is (`oneway merge`): an evaluation's last steps (evaluation.ts) over results that
 * ran elsewhere, the outputs of `oneway eval --shard=i/n`, or of evaluations of other planners on
 * the same scenarios and seed (`oneway serve`'s sessions among them):
 *
 *   each part's results.json → one results (engine/runner/shard.ts) → the line-up checks → the
 *   --out lock → the parts' run records → analyse → results.json and the reports
 *
 * The line-up checks, the lock and the writing are the evaluation's own (`checkLineUp`, `lockOut`,
 * `writeResults`): a gate or a baseline means in a merge what it means in an evaluation.
 */
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Results } from '../../engine/results/types.ts';
import { readResults } from '../../engine/results/write.ts';
import { mergeResults } from '../../engine/runner/shard.ts';
import { checkLineUp } from '../request/eval.ts';
import type { MergeRequest } from '../request/merge.ts';
import { lockOut, writeResults, type ReportConsole } from './evaluation.ts';

/** How a merge is shown: its warnings (a stale --out lock taken over), and where the reporters that print write. */
export interface MergeDisplay {
  warning?(message: string): void;
  console: ReportConsole;
}

/**
 * Merges the request's parts into --out: results.json (the merged results, analysed as the
 * request asks), the parts' run records under runs/, and the reports. A usage error (parts that
 * do not merge, a baseline planner or a gate's planner the parts lack, a live lock on --out)
 * throws a UsageError before anything is written.
 *
 * @example
 * const { results, written } = await merged(request, { command: 'oneway merge' }, { console });
 */
export async function merged(
  request: MergeRequest,
  o: { command: string },
  display: MergeDisplay,
): Promise<{ results: Results; written: string[] }> {
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
