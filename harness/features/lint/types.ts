/**
 * Lint findings and rules. A rule reviews one scenario that passed the schema
 * (it may still have semantic problems, so rules tolerate names that refer to
 * nothing and facts that do not parse) and may look at the other linted files
 * (for class drift across deployments).
 */
import { formatLocated, formatPath, type LintFinding, type Problem, type Severity } from '../../core/errors.ts';
import type { Scenario } from '../../core/scenario.ts';
import type { FieldPath, Pos } from '../../engine/loader/yaml-source.ts';

// The finding's type lives beside Problem (core/errors.ts): results carry findings too.
export type { LintFinding, Severity };

/** One linted file that passed the schema. */
export interface LintTarget {
  file: string;
  scenario: Scenario;
  /**
   * `tools`: a tools file `oneway guard` enforces (a tools block, or a scenario linted as one): what
   * is still unreviewed there is an error, and its goal is not the point. Absent: a scenario.
   */
  kind?: 'tools';
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

/** A load problem as a finding (rule `load/<code>`): lint shows what the loader refuses beside its rules' findings. */
export function findingOf(p: Problem): LintFinding {
  return {
    rule: `load/${p.code}`,
    severity: p.severity === 'warning' ? 'warning' : 'error',
    file: p.file,
    line: p.line,
    col: p.col,
    path: p.path,
    message: p.message,
    ...(p.hint ? { hint: p.hint } : {}),
  };
}
