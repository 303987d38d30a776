/**
 * Review before enforcing: the gate `oneway guard` runs on its tools file at start. The findings
 * are `oneway lint --as=tools`'s (one review, two commands): entries still marked `review: true`,
 * compensations still holding a TODO, and every other lint error (a precondition no declared tool
 * establishes, such as a typo, would block its tool for good). Warnings and notes never stop it.
 */
import { readSource } from '../../engine/loader/load.ts';
import { lintTexts } from '../lint/lint.ts';
import type { LintFinding } from '../lint/types.ts';

/**
 * What keeps a tools file from being enforced: its lint errors as a tools file, with the guard's
 * `--facts` as facts known at the start. Empty: the file is reviewed.
 *
 * @example
 * const unreviewed = reviewGate('memory.yaml', 'memory.yaml', []);
 * for (const f of unreviewed) console.error(formatFinding(f)); // ... error [review-pending] tools[0].review: ...
 */
export function reviewGate(path: string, shown: string, facts: readonly string[]): LintFinding[] {
  const text = readSource(path);
  // The guard has just loaded the file: a file that cannot be read now is the loader's to report.
  if (!text.ok) return [];
  return lintTexts([{ file: shown, text: text.value, kind: 'tools', facts }]).filter((f) => f.severity === 'error');
}
