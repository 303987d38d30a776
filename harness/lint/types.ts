/**
 * Lint findings and rules. A rule reviews one scenario that passed the schema
 * (it may still have semantic problems, so rules tolerate names that refer to
 * nothing and facts that do not parse) and may look at the other linted files
 * (for class drift across deployments).
 */
import { formatPath, type Problem } from '../errors.ts';
import type { Scenario } from '../schema/scenario.ts';
import type { FieldPath, Pos } from '../loader/yaml-source.ts';
import { terminalText } from '../util/terminal-text.ts';

export type Severity = 'error' | 'warning' | 'info';

/** A lint finding: a positioned problem (see harness/errors.ts) named by its rule, with an info level too. */
export interface Finding extends Omit<Problem, 'code' | 'severity'> {
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
  check(ctx: RuleContext): Finding[];
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
): Finding {
  return { rule, severity, file: ctx.file, ...ctx.locate(path, { at }), path: formatPath(path), message, ...(hint ? { hint } : {}) };
}

/** `file:line:col severity [rule] path: message` and the hint below, as compilers print them (scenario text escaped for the console). */
export function formatFinding(f: Finding): string {
  return `${terminalText(f.file)}:${f.line}:${f.col} ${f.severity} [${f.rule}] ${terminalText(f.path)}: ${terminalText(f.message)}${f.hint ? `\n    hint: ${terminalText(f.hint)}` : ''}`;
}
