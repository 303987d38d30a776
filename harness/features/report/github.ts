/**
 * GitHub Actions: `::error file=...,line=...` annotations at the scenario line
 * of each tool behind an alert of the score registry (called prematurely), one per failed gate, one
 * per scenario problem (lint errors included; a warning for each lint error run with), and the Markdown
 * report appended to the job summary (`$GITHUB_STEP_SUMMARY`).
 * Workflow-command escaping: https://github.com/actions/toolkit (command.ts).
 */
import type { Results } from '../../engine/results/types.ts';
import { alertOf } from '../../engine/scoring/registry.ts';
import { trialsText } from './format.ts';
import { terminalText } from '../../util/terminal-text.ts';
import { plural } from '../../util/plural.ts';

/** Escapes a command's message (GitHub's rules), then any other control character as for the console. */
export function escapeData(s: string): string {
  return terminalText(s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
}

/** Escapes a command's property value: as data, plus `:` and `,`. */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function annotation(
  level: 'error' | 'warning' | 'notice',
  message: string,
  props: Record<string, string | number | undefined> = {},
): string {
  const p = Object.entries(props)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(',');
  return `::${level}${p ? ` ${p}` : ''}::${escapeData(message)}`;
}

/** One notice with the sample size: scenarios (the unit of evidence) × trials each, per planner. */
function sampleNotice(results: Results): string | null {
  if (results.summary.length === 0) return null;
  const parts = results.summary.map(
    (s) =>
      `${s.planner} n = ${plural(s.scenarios, 'scenario')} × ${trialsText(s.trials_per_scenario)} trial${s.trials_per_scenario.max === 1 ? '' : 's'}`,
  );
  return annotation('notice', `${parts.join('; ')}. Intervals and the paired test count scenarios, not runs.`, {
    title: 'oneway: sample size',
  });
}

export function renderAnnotations(results: Results): string[] {
  const out: string[] = [];
  const sample = sampleNotice(results);
  if (sample) out.push(sample);
  const seen = new Set<string>();
  for (const run of results.runs) {
    const scenario = results.scenarios.find((s) => s.id === run.scenario);
    for (const f of run.findings) {
      const alert = alertOf(f);
      if (!alert) continue;
      const key = `${run.scenario}/${run.planner}/${f.kind}/${f.tool}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(
        annotation('error', `${run.planner}: ${f.message} (trial ${run.trial}, seed ${run.seed})`, {
          file: scenario?.file,
          line: scenario?.tool_lines[f.tool],
          title: alert.title(f.tool),
        }),
      );
    }
  }
  for (const g of results.gates.failures) out.push(annotation('error', g.message, { title: `oneway gate: ${g.gate}` }));
  for (const p of results.problems)
    out.push(
      annotation('error', `${p.path}: ${p.message}${p.hint ? ` (hint: ${p.hint})` : ''}`, {
        file: p.file,
        line: p.line,
        col: p.col,
        title: p.code === 'lint' ? `oneway lint: ${p.rule ?? 'error'} (scenario skipped)` : 'oneway: scenario error',
      }),
    );
  // Lint errors the scenarios ran with (--allow-lint-errors): warnings, at the declaration.
  for (const f of results.lint ?? [])
    out.push(
      annotation('warning', `${f.path}: ${f.message}${f.hint ? ` (hint: ${f.hint})` : ''}`, {
        file: f.file,
        line: f.line,
        col: f.col,
        title: `oneway lint: ${f.rule} (allowed)`,
      }),
    );
  return out;
}
