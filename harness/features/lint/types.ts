/**
 * Lint findings and rules. A rule reviews one scenario that passed the schema
 * (it may still have semantic problems, so rules tolerate names that refer to
 * nothing and facts that do not parse) and may look at the other linted files
 * (for class drift across deployments).
 */
import { formatLocated, formatPath, type Problem, type Severity } from '../../core/errors.ts';
import type { Scenario } from '../../core/scenario.ts';
import type { FieldPath, Pos } from '../../engine/loader/yaml-source.ts';

export type { Severity };

/**
 * A lint finding: a positioned `Problem` (harness/core/errors.ts) named by its rule instead of a code,
 * and always with a severity (notes, `info`, too). `rule` is what `--format=json` prints.
 */
export interface LintFinding extends Omit<Problem, 'code' | 'severity'> {
  /** The rule id, e.g. `reversible-asymmetric`; load problems are `load/<code>`. */
  rule: string;
  severity: Severity;
}

/** One linted file that passed the schema. */
export interface LintTarget {
  file: string;
  scenario: Scenario;
  locate(path: FieldPath, opts?: { at?: 'key' | 'value' }): Pos;
}

export interface RuleContext extends LintTarget {
  /** Every linted file that passed the schema, this one included. */
  all: readonly LintTarget[];
}

export interface Rule {
  id: string;
  /** One line: what the rule finds and why it matters. */
  description: string;
  check(ctx: RuleContext): LintFinding[];
}

/** A finding at a field path of the file being linted. */
export function finding(
  ctx: LintTarget,
  rule: string,
  severity: Severity,
  path: FieldPath,
  message: string,
  hint?: string,
  at: 'key' | 'value' = 'value',
): LintFinding {
  return {
    rule,
    severity,
    file: ctx.file,
    ...ctx.locate(path, { at }),
    path: formatPath(path),
    message,
    ...(hint ? { hint } : {}),
  };
}

/** `file:line:col severity [rule] path: message` and the hint below: a problem's line, the rule for its code. */
export function formatFinding(f: LintFinding): string {
  return formatLocated(f, f.severity, f.rule);
}
