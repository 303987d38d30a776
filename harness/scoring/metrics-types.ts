/** Per-run scores: one field per entry of the score registry (registry.ts); definitions in docs/scores.md. */
export type { ByClass, RunMetrics, ScoreName } from './registry.ts';
