/**
 * Reporters read results and render them; they never recompute a score.
 * `results.json` is always written by the evaluation itself; file reporters
 * write beside it in the output directory.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChalkInstance } from 'chalk';
import type { Results } from '../../engine/results/types.ts';
import { redact } from '../../util/secrets.ts';
import { neutraliseCommands, terminalSafeDeep } from '../../util/terminal-text.ts';
import { outputError, refuseLinks, writeFileAtomic } from '../../engine/io/atomic-write.ts';
import { renderAnnotations } from './github.ts';
import { HTML_REPORT_FILE, recordsIn, renderHtml } from './html.ts';
import { renderJunit } from './junit.ts';
import { renderMarkdown } from './markdown.ts';
import { renderComparisonTable, renderScenarioGrid, renderSummaryTable } from './table.ts';
import { outputWidth } from '../../util/width.ts';
import { parseReporters, type ReporterName } from './names.ts';

export interface ReportContext {
  outDir: string;
  stdout: NodeJS.WritableStream;
  chalk: ChalkInstance;
  env?: NodeJS.ProcessEnv;
  /** Console columns the table must fit (default: the terminal's, else COLUMNS, else 120 in CI and 100 otherwise). */
  width?: number;
}

/** What a reporter is given: the results, where it writes (both redacted), and whether it is the only one asked for. */
interface ReporterOutput {
  results: Results;
  ctx: ReportContext;
  stdout: (text: string) => void;
  /** Writes a file beside results.json in the output directory. */
  writeFile: (name: string, text: string) => void;
  alone: boolean;
}

type Reporter = (out: ReporterOutput) => void;

/** Every reporter, by the name `--reporter=` takes (names.ts lists them): one for each name, and no other. */
const reporters = {
  table: ({ results, ctx, stdout }) => {
    // Planner names and messages are planner text: every string escaped for the console before it meets a cell.
    const shown = terminalSafeDeep(results);
    const width = ctx.width ?? outputWidth(ctx.stdout as { isTTY?: boolean; columns?: number }, ctx.env);
    const comparison = shown.comparisons.length
      ? `${renderComparisonTable(shown.comparisons, ctx.chalk, width)}\n`
      : '';
    stdout(
      neutraliseCommands(
        `${renderScenarioGrid(shown, ctx.chalk, width)}\n${renderSummaryTable(shown, ctx.chalk, width)}\n${comparison}`,
      ),
    );
  },
  json: ({ results, stdout, alone }) => {
    // Alone, json prints the results for piping (`| jq`); with others, its output is results.json, which every evaluation writes.
    if (alone) stdout(`${JSON.stringify(results, null, 2)}\n`);
  },
  markdown: ({ results, writeFile }) => writeFile('report.md', renderMarkdown(results)),
  junit: ({ results, writeFile }) => writeFile('junit.xml', renderJunit(results)),
  github: ({ results, ctx, stdout }) => {
    for (const line of renderAnnotations(results)) stdout(`${line}\n`);
    const summary = ctx.env?.GITHUB_STEP_SUMMARY;
    if (summary) {
      try {
        appendFileSync(summary, redact(`${renderMarkdown(results)}\n`));
      } catch (e) {
        throw outputError(e, summary, 'results.json is written');
      }
    }
  },
  // Reads each run's record from outDir; a missing or cut-short one is a note in its drill-down.
  html: ({ results, ctx, writeFile }) =>
    writeFile(HTML_REPORT_FILE, renderHtml(results, { loadRecord: recordsIn(ctx.outDir), outDir: ctx.outDir })),
} satisfies Record<ReporterName, Reporter>;

export { REPORTERS, parseReporters } from './names.ts';

export function writeReports(results: Results, names: readonly string[], ctx: ReportContext): string[] {
  const chosen = parseReporters(names);
  const written: string[] = [];
  // Everything a reporter emits passes through the redactor: reports are shared more widely than records.
  const stdout = (t: string) => ctx.stdout.write(redact(t));
  const writeFile = (name: string, text: string) => {
    try {
      // Never through a symbolic link planted in --out (io/atomic-write.ts); whole or not at all, so that
      // a report open in a browser while `eval --watch` rewrites it is the old one or the new one.
      refuseLinks(ctx.outDir, join(ctx.outDir, name));
      writeFileAtomic(join(ctx.outDir, name), redact(text));
    } catch (e) {
      throw outputError(e, join(ctx.outDir, name), 'results.json is written');
    }
    written.push(name);
  };
  for (const name of chosen) reporters[name]({ results, ctx, stdout, writeFile, alone: chosen.length === 1 });
  return written;
}
