/** Shared fixtures for the loader tests: the tiny scenario, as text and as an editable object. */
import { parse, stringify } from 'yaml';
import type { Problem } from '../../harness/core/errors.ts';
import { TINY_SCENARIO } from '../../harness/features/bench/loader-work.ts';
import { loadScenarioText, type LoadedScenario } from '../../harness/engine/loader/load.ts';

/** A small valid scenario: the one the bench's loader-work case edits, from its one home. */
export const TINY = TINY_SCENARIO;

export type Doc = Record<string, any>;

/** The tiny scenario as a plain object, changed by `edit`, back as YAML text. */
export function tinyWith(edit: (doc: Doc) => void): string {
  const doc = parse(TINY) as Doc;
  edit(doc);
  return stringify(doc);
}

/** Loads text that must fail; returns its problems. */
export function problemsOf(text: string, file = 'test.yaml'): Problem[] {
  const r = loadScenarioText(text, file);
  if (r.ok) throw new Error('expected problems, but the scenario loaded');
  return r.problems;
}

/** Loads text that must succeed. */
export function loaded(text: string, file = 'test.yaml'): LoadedScenario {
  const r = loadScenarioText(text, file);
  if (!r.ok)
    throw new Error(
      `expected the scenario to load, got:\n${r.problems.map((p) => `${p.line}:${p.col} ${p.path} ${p.message}`).join('\n')}`,
    );
  return r.value;
}

/** A compact view of problems for assertions. */
export function brief(ps: Problem[]): { code: string; path: string; line: number; col: number }[] {
  return ps.map((p) => ({ code: p.code, path: p.path, line: p.line, col: p.col }));
}
