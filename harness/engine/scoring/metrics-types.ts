/** Per-run scores: one field per entry of the score registry (registry.ts); definitions in docs/scores.md. */
export type { RunMetrics } from './registry.ts';
