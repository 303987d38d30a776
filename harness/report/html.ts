/**
 * `--reporter=html`: `report.html`, one self-contained file (no network: inline
 * CSS, script and SVG, the data embedded as JSON) with the comparison at a
 * glance, the scenario × planner grid, and a drill-down per run built from its
 * record: calls by batch on the virtual clock, what was premature and why,
 * and what each effect needs to be undone.
 *
 * Reads results and run records; never recomputes a score.
 */
import { join } from 'node:path';
import { readRecord, type RecordRead } from '../recover/record.ts';
import type { Results, RunResult } from '../results/types.ts';
import { buildReportData, type DataOptions } from './html/data.ts';
import { renderPage } from './html/template.ts';

export const HTML_REPORT_FILE = 'report.html';

export type HtmlOptions = DataOptions;

/**
 * The report as one HTML string. Without `loadRecord` the drill-down has scores and findings but no timelines.
 *
 * @example
 * const html = renderHtml(results, { loadRecord: recordsIn('reports/latest') });
 */
export function renderHtml(results: Results, options: HtmlOptions = {}): string {
  return renderPage(results, buildReportData(results, options));
}

/**
 * Reads each run's record from `DIR/<run.record>` (the results directory). A missing or
 * cut-short record comes back as issues or warnings, which become notes in that run's drill-down.
 *
 * @example
 * writeFileSync(join(dir, HTML_REPORT_FILE), renderHtml(results, { loadRecord: recordsIn(dir) }));
 */
export function recordsIn(outDir: string): (run: RunResult) => RecordRead {
  return (run) => readRecord(join(outDir, run.record));
}
