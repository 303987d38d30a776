/**
 * The error model, in one module. A user's mistake is a value: a `Problem` (code, location,
 * hint), returned in a `Result` and printed once at the edge (the CLI) by `formatProblem`.
 * Lint findings (`LintFinding`, below) and run-record issues (harness/engine/record/reader.ts) are
 * problems of their own kinds, derived from `Problem`. Errors that callers tell apart are thrown
 * as subclasses of `OnewayError`, which carries a stable `code` (`usage`, `model`, `tamper`, ...);
 * a plain `Error` is an internal fault, or a message that ends one run (recorded as its error).
 */
import { terminalText } from '../util/terminal-text.ts';

export type ProblemCode =
  | 'yaml_syntax'
  | 'yaml_limit'
  | 'schema'
  | 'unknown_key'
  | 'invalid_enum'
  | 'duplicate'
  | 'unknown_tool'
  | 'compensation'
  | 'fact_syntax'
  | 'template'
  | 'class_rules'
  | 'plan'
  | 'file'
  | 'spec'
  | 'usage'
  | 'planner'
  | 'lint';

/** How bad a reported issue is: errors fail the command; warnings and notes (`info`, lint only) do not. */
export type Severity = 'error' | 'warning' | 'info';

export interface Problem {
  code: ProblemCode;
  file: string;
  line: number;
  col: number;
  /** The field path, e.g. `tools[2].reversibility`. */
  path: string;
  message: string;
  hint?: string;
  severity?: Exclude<Severity, 'info'>;
  /** With code `lint`: the lint rule that refused the scenario, e.g. `reversible-asymmetric`. */
  rule?: string;
}

/**
 * A lint finding (harness/features/lint): a positioned `Problem` named by its rule instead of a
 * code, and always with a severity (notes, `info`, too). Here, beside `Problem`, because results
 * carry the lint errors an evaluation was allowed to run with (`--allow-lint-errors`).
 */
export interface LintFinding extends Omit<Problem, 'code' | 'severity' | 'rule'> {
  /** The rule id, e.g. `reversible-asymmetric`; load problems are `load/<code>`. */
  rule: string;
  severity: Severity;
}

/**
 * Success or failure as a value, for anything that can fail on its input: `ok` says which.
 * Success carries `value` (nothing when there is nothing to return: `Result<void, E>` is
 * `{ ok: true }`); failure carries the fields of `E`, by default the problems found.
 *
 * @example
 * const r: Result<Fact, { message: string }> = ...;
 * if (!r.ok) console.error(r.message);
 */
export type Result<T, E extends object = { problems: Problem[] }> =
  ([T] extends [void] ? { ok: true } : { ok: true; value: T }) | ({ ok: false } & E);

/** Formats a field path the way users write it: `tools[2].effects[0].insert`. */
export function formatPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? p : `.${p}`;
  }
  return out || '(root)';
}

/**
 * `file:line:col severity [code] path: message` and its hint below — one line per problem, as
 * compilers print them; a lint error that refused a scenario shows its rule, as `oneway lint` does.
 * Every part may quote the scenario, so each is passed through `terminalText`: no control
 * character or workflow command of a scenario's reaches the console.
 */
export function formatProblem(p: Problem): string {
  return formatLocated(p, p.severity === 'warning' ? 'warning' : 'error', p.rule ?? p.code);
}

/**
 * The line every positioned issue prints as; `tag` is a problem's code or a lint finding's rule.
 * Line 0 is no place in a file (a flag's value, `--scenario`; a file as a whole): no line:column then.
 */
export function formatLocated(p: Omit<Problem, 'code' | 'severity'>, severity: Severity, tag: string): string {
  const where = p.line > 0 ? `${terminalText(p.file)}:${p.line}:${p.col}` : terminalText(p.file);
  const hint = p.hint ? `\n    hint: ${terminalText(p.hint)}` : '';
  return `${where} ${severity} [${tag}] ${terminalText(p.path)}: ${terminalText(p.message)}${hint}`;
}

/**
 * The base of the errors callers tell apart (`instanceof` a subclass, or `code`). `code` is
 * stable: callers may branch on it, where messages may be reworded. `name` is each subclass's own.
 */
export class OnewayError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Thrown for usage errors that the CLI renders without a stack trace (exit 2). */
export class UsageError extends OnewayError {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super('usage', message);
    this.name = 'UsageError';
  }
}
