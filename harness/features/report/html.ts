/**
 * `--reporter=html`: `report.html`, one self-contained file (no network: inline
 * CSS, script and SVG, the data embedded as JSON) with the comparison at a
 * glance, the scenario × planner grid, and a drill-down per run built from its
 * record: calls by batch on the virtual clock, what was premature and why,
 * and what each effect needs to be undone.
 *
 * Reads results and run records; never recomputes a score.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { readRecord, type RecordRead } from '../../engine/record/reader.ts';
import type { Results, RunResult } from '../../engine/results/types.ts';
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

/** Whether `path` is inside `dir` (not `dir` itself). */
function inside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * Reads each run's record from `DIR/<run.record>` (the results directory). A missing or
 * cut-short record comes back as issues or warnings, which become notes in that run's drill-down.
 * A record path that leads out of the directory (`../`, an absolute path, or a symbolic link to
 * elsewhere: results.json of a merged shard is not to be trusted) is not read.
 *
 * @example
 * writeFileSync(join(dir, HTML_REPORT_FILE), renderHtml(results, { loadRecord: recordsIn(dir) }));
 */
export function recordsIn(outDir: string): (run: RunResult) => RecordRead {
  const root = resolve(outDir);
  const refused = (record: string): RecordRead => ({
    ok: false,
    issues: [
      {
        severity: 'error',
        file: record,
        line: 0,
        message: 'the record path leads outside the results directory, so it was not read',
        hint: 'records are under <out>/runs/; check results.json and the runs/ directory',
      },
    ],
  });
  return (run) => {
    const record = String(run.record);
    const path = resolve(root, record);
    if (!inside(path, root)) return refused(record);
    let real: string | undefined;
    try {
      real = realpathSync(path);
    } catch {
      // missing or unreadable: readRecord says which
    }
    if (real !== undefined && !inside(real, realpathSync(root))) return refused(record);
    return readRecord(path);
  };
}
