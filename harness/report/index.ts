/**
 * Reporters read results and render them; they never recompute a score.
 * `results.json` is always written by the evaluation itself.
 */
import type { ChalkInstance } from 'chalk';
import type { Results } from '../results/types.ts';
import { renderScenarioGrid, renderSummaryTable } from './table.ts';

export const REPORTERS = ['table', 'json'];

export interface ReportContext {
  outDir: string;
  stdout: NodeJS.WritableStream;
  chalk: ChalkInstance;
}

export function writeReports(results: Results, reporters: readonly string[], ctx: ReportContext): void {
  for (const r of reporters) {
    if (r === 'table') {
      ctx.stdout.write(`${renderScenarioGrid(results, ctx.chalk)}\n${renderSummaryTable(results, ctx.chalk)}\n`);
    } else if (r === 'json' && reporters.length === 1) {
      // Alone, json prints the results for piping (`| jq`); with others, results.json on disk serves.
      ctx.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    }
  }
}
