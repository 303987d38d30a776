/**
 * User mistakes are values: a code, a location and a hint, rendered once at the
 * edge (the CLI). Internal faults throw `OnewayError`'s sibling, a plain Error.
 */
import { terminalText } from './util/terminal-text.ts';

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
  | 'planner';

export interface Problem {
  code: ProblemCode;
  file: string;
  line: number;
  col: number;
  /** The field path, e.g. `tools[2].reversibility`. */
  path: string;
  message: string;
  hint?: string;
  severity?: 'error' | 'warning';
}

export type Result<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

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
 * `file:line:col  path  message (hint: ...)` — one line per problem, as compilers print them.
 * Every part may quote the scenario, so each is passed through `terminalText`: no control
 * character or workflow command of a scenario's reaches the console.
 */
export function formatProblem(p: Problem): string {
  const where = `${terminalText(p.file)}:${p.line}:${p.col}`;
  const sev = p.severity === 'warning' ? 'warning' : 'error';
  const hint = p.hint ? `\n    hint: ${terminalText(p.hint)}` : '';
  return `${where} ${sev} [${p.code}] ${terminalText(p.path)}: ${terminalText(p.message)}${hint}`;
}

/** Thrown for usage errors that the CLI renders without a stack trace (exit 2). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}
