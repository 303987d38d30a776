/**
 * GitHub Actions: `::error file=...,line=...` annotations at the scenario line
 * of each tool called prematurely, one per failed gate, and the Markdown
 * report appended to the job summary (`$GITHUB_STEP_SUMMARY`).
 * Workflow-command escaping: https://github.com/actions/toolkit (command.ts).
 */
import type { Results } from '../results/types.ts';

/** Escapes a command's message. */
export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes a command's property value: as data, plus `:` and `,`. */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function annotation(level: 'error' | 'warning' | 'notice', message: string, props: Record<string, string | number | undefined> = {}): string {
  const p = Object.entries(props)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(',');
  return `::${level}${p ? ` ${p}` : ''}::${escapeData(message)}`;
}

export function renderAnnotations(results: Results): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const run of results.runs) {
    const scenario = results.scenarios.find((s) => s.id === run.scenario);
    for (const f of run.findings) {
      if (f.kind !== 'premature' || f.class !== 'irreversible') continue;
      const key = `${run.scenario}/${run.planner}/${f.tool}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(
        annotation('error', `${run.planner}: ${f.message} (trial ${run.trial}, seed ${run.seed})`, {
          file: scenario?.file,
          line: scenario?.tool_lines[f.tool],
          title: `premature irreversible call: ${f.tool}`,
        }),
      );
    }
  }
  for (const g of results.gates.failures) out.push(annotation('error', g.message, { title: `oneway gate: ${g.gate}` }));
  for (const p of results.problems) out.push(annotation('error', `${p.path}: ${p.message}${p.hint ? ` (hint: ${p.hint})` : ''}`, { file: p.file, line: p.line, col: p.col, title: 'oneway: scenario error' }));
  return out;
}
