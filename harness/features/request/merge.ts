/**
 * A merge request (`oneway merge`): the evaluations' output directories to merge, and what is done
 * with the merged results, read from the settings' layers as an evaluation reads it (eval.ts,
 * `analysisRequest`): the reporters, the gates, the baseline, the baseline planner and --out. The
 * layers' other settings are an evaluation's, and a merge runs nothing: they are not read.
 */
import { resolve } from 'node:path';
import { analysisRequest, type AnalysisRequest, type EntryDefaults, type EvalSettings } from './eval.ts';
import { mergeLayers, type Layer } from './layers.ts';

export interface MergeRequest extends AnalysisRequest {
  /** The directories merged (absolute), each the --out of an evaluation. */
  parts: string[];
}

/**
 * The layers (later over earlier: a flag over the config file) and the parts as a merge request.
 *
 * @example
 * const request = await mergeRequest([configLayer(cf), { from: { kind: 'flags' }, settings: { out: 'merged' } }], ['s1', 's2'], { cwd, env, defaults: EVAL_DEFAULTS });
 */
export async function mergeRequest(
  layers: readonly Layer<EvalSettings>[],
  parts: readonly string[],
  ctx: { cwd: string; env: NodeJS.ProcessEnv; defaults: EntryDefaults },
): Promise<MergeRequest> {
  return {
    ...(await analysisRequest(mergeLayers(layers), ctx)),
    parts: parts.map((p) => resolve(ctx.cwd, p)),
  };
}
