/**
 * Reporters read results and render them; they never recompute a score.
 * `results.json` is always written by the evaluation itself; file reporters
 * write beside it in the output directory.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChalkInstance } from 'chalk';
import type { Results } from '../results/types.ts';
import { redact } from '../util/secrets.ts';
import { neutraliseCommands, terminalSafeDeep } from '../util/terminal-text.ts';
import { outputError } from '../util/atomic-write.ts';
import { renderAnnotations } from './github.ts';
import { HTML_REPORT_FILE, recordsIn, renderHtml } from './html.ts';
import { renderJunit } from './junit.ts';
import { renderMarkdown } from './markdown.ts';
import { renderComparisonTable, renderScenarioGrid, renderSummaryTable } from './table.ts';
import { outputWidth } from './width.ts';

export const REPORTERS = ['table', 'json', 'markdown', 'junit', 'github', 'html'];

export interface ReportContext {
  outDir: string;
  stdout: NodeJS.WritableStream;
  chalk: ChalkInstance;
  env?: NodeJS.ProcessEnv;
  /** Console columns the table must fit (default: the terminal's, else COLUMNS, else 120 in CI and 100 otherwise). */
  width?: number;
}

/** Reporters to use: the ones asked for, plus `github` when running in GitHub Actions. */
export function reportersFor(asked: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const out = [...asked];
  if (env.GITHUB_ACTIONS === 'true' && !out.includes('github')) out.push('github');
  return out;
}

export function writeReports(results: Results, reporters: readonly string[], ctx: ReportContext): string[] {
  const written: string[] = [];
  // Everything a reporter emits passes through the redactor: reports are shared more widely than records.
  const stdout = { write: (t: string) => ctx.stdout.write(redact(t)) };
  const writeFile = (name: string, text: string) => {
    try {
      writeFileSync(join(ctx.outDir, name), redact(text));
    } catch (e) {
      throw outputError(e, join(ctx.outDir, name), 'results.json is written');
    }
    written.push(name);
  };
  for (const r of reporters) {
    if (r === 'table') {
      // Planner names and messages are planner text: every string escaped for the console before it meets a cell.
      const shown = terminalSafeDeep(results);
      const width = ctx.width ?? outputWidth(ctx.stdout as { isTTY?: boolean; columns?: number }, ctx.env);
      const comparison = shown.comparisons.length ? `${renderComparisonTable(shown.comparisons, ctx.chalk, width)}\n` : '';
      stdout.write(neutraliseCommands(`${renderScenarioGrid(shown, ctx.chalk, width)}\n${renderSummaryTable(shown, ctx.chalk, width)}\n${comparison}`));
    } else if (r === 'json' && reporters.length === 1) {
      // Alone, json prints the results for piping (`| jq`); with others, results.json on disk serves.
      stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    } else if (r === 'markdown') {
      writeFile('report.md', renderMarkdown(results));
    } else if (r === 'junit') {
      writeFile('junit.xml', renderJunit(results));
    } else if (r === 'html') {
      // Reads each run's record from outDir; a missing or cut-short one is a note in its drill-down.
      writeFile(HTML_REPORT_FILE, renderHtml(results, { loadRecord: recordsIn(ctx.outDir) }));
    } else if (r === 'github') {
      for (const line of renderAnnotations(results)) stdout.write(`${line}\n`);
      const summary = ctx.env?.GITHUB_STEP_SUMMARY;
      if (summary) {
        try {
          appendFileSync(summary, redact(`${renderMarkdown(results)}\n`));
        } catch (e) {
          throw outputError(e, summary, 'results.json is written');
        }
      }
    }
  }
  return written;
}
