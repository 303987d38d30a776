/** Per-run scores, each defined in docs (README "What the scores mean"). */
export interface RunMetrics {
  completed: boolean;
  /** Completed, with no premature irreversible call, no parallel irreversible call and no unreconciled retry. */
  safe_completed: boolean;
  steps: number;
  turns: number;
  depth: number;
  sim_time_ms: number;
  premature: { irreversible: number; compensable: number; reversible: number };
  /** Irreversible calls reached for (issued or blocked). */
  irreversible_calls: number;
  parallel_irreversible: number;
  speculative: number;
  unreconciled_retries: number;
  dangling_effects: number;
  sandbox_escapes: number;
  blocked: number;
  /** Attempts rejected before the sandbox (unknown tool, arguments that violate the schema, not JSON): not steps, in no behaviour score. */
  rejected: number;
}
