/**
 * Loading scenario and plan files: parse (with positions), validate against the
 * zod schema, then run the whole-scenario checks, and report every problem in
 * the file at once. User mistakes come back as problems; nothing here throws on
 * user input.
 */
import { readFileSync, statSync } from 'node:fs';
import type { Problem, Result } from '../../core/errors.ts';
import { Plan, Scenario, type PlanItem } from '../../core/scenario.ts';
import { didYouMean } from '../../util/did-you-mean.ts';
import { schemaProblems } from './schema-problems.ts';
import { shareTables, withShared } from './extends.ts';
import { checkPlan, checkScenario } from './semantics.ts';
import {
  MAX_SOURCE_BYTES,
  parseYamlSource,
  tooLargeProblem,
  type FieldPath,
  type Pos,
  type YamlSource,
} from './yaml-source.ts';

export interface LoadedScenario {
  scenario: Scenario;
  /** The file it came from (as given to the loader; absolute when found by `resolveScenarios`). */
  file: string;
  /** The line of each tool's `name:`, by tool name: where results point a tool's findings (`tool_lines`). */
  toolLines: Record<string, number>;
  /** Where a field path is in the file (1-based), e.g. to point a run-time or lint finding at its declaration. */
  locate(path: FieldPath, opts?: { at?: 'key' | 'value' }): Pos;
}

/** Problems in reading order. */
export function sortProblems(problems: Problem[]): Problem[] {
  return [...problems].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.col - b.col));
}

/**
 * Loads a scenario from YAML or JSON text.
 *
 * @example
 * const r = loadScenarioText(text, 'scenarios/tiny.yaml');
 * if (!r.ok) for (const p of r.problems) console.error(formatProblem(p));
 */
export function loadScenarioText(text: string, file: string, baseDir?: string): Result<LoadedScenario> {
  const src = scenarioSource(text, file, baseDir);
  if (!src.ok) return src;
  return validateScenario(src.value);
}

/**
 * A scenario's text parsed, with the shared files it `extends` merged in (their parts located in
 * them: extends.ts). `baseDir`: the scenario file's directory, when `file` is a name for display.
 */
export function scenarioSource(text: string, file: string, baseDir?: string): Result<YamlSource> {
  const src = parseYamlSource(text, file);
  if (!src.ok) return src;
  const merged = withShared(src.value, readSource, baseDir);
  return merged.ok ? merged : { ok: false, problems: sortProblems(merged.problems) };
}

/** Validates a parsed scenario source: the schema, then the whole-scenario checks. */
export function validateScenario(src: YamlSource): Result<LoadedScenario> {
  const parsed = Scenario.safeParse(src.value, { reportInput: true });
  if (!parsed.success) return { ok: false, problems: sortProblems(schemaProblems(parsed.error.issues, src)) };
  const problems = checkScenario(parsed.data, src);
  if (problems.length > 0) return { ok: false, problems: sortProblems(problems) };
  shareTables(parsed.data, src);
  const toolLines = toolLinesOf(parsed.data, src.locate);
  // A scenario that extends shared files keeps their sources: its positions may be in them.
  const locate = parsed.data.extends === undefined ? locator(src.text, src.file) : src.locate.bind(src);
  return { ok: true, value: { scenario: parsed.data, file: src.file, toolLines, locate } };
}

/** Each tool's `name:` line, by name. */
function toolLinesOf(scenario: Scenario, locate: LoadedScenario['locate']): Record<string, number> {
  return Object.fromEntries(scenario.tools.map((t, i) => [t.name, locate(['tools', i, 'name']).line]));
}

/**
 * `locate` for text that has loaded: parsed again the first time a position is asked for (rarely:
 * a duplicate id, a finding pointed at its declaration). Keeping every file's parsed document
 * instead held the YAML tree of every scenario for the life of the process (4 MiB of heap for
 * the bundled ones; a cached load has no document at all).
 */
export function locator(text: string, file: string): LoadedScenario['locate'] {
  let source: YamlSource | undefined;
  return (path, opts) => {
    if (!source) {
      const src = parseYamlSource(text, file);
      if (!src.ok) throw new Error(`${file} no longer parses: ${src.problems[0]?.message ?? 'unknown problem'}`);
      source = src.value;
    }
    return source.locate(path, opts);
  };
}

/**
 * Reads and loads one scenario file. An unreadable or oversized file is a problem (code 'file'
 * or 'yaml_limit'), not an exception.
 *
 * @example
 * const r = loadScenarioFile('scenarios/billing/invoice-and-notify.yaml');
 */
export function loadScenarioFile(path: string): Result<LoadedScenario> {
  const text = readSource(path);
  if (!text.ok) return text;
  return loadScenarioText(text.value, path);
}

/**
 * Reads a text file, refusing directories and files over the size limit without reading them.
 * `read` reads the file once it is known to be one (tests give a reader that fails as the operating
 * system would: permissions cannot make a file unreadable for root).
 */
export function readSource(
  path: string,
  read: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): Result<string> {
  try {
    const st = statSync(path);
    if (st.isDirectory()) return fileProblem(path, 'is a directory, not a file', 'give a .yaml, .yml or .json file');
    if (st.size > MAX_SOURCE_BYTES) return { ok: false, problems: [tooLargeProblem(path, st.size)] };
    return { ok: true, value: read(path) };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'is not readable (permission denied)'
          : `cannot be read: ${(e as Error).message}`;
    return fileProblem(
      path,
      why,
      code === 'ENOENT' ? 'check the path (relative paths start at the current directory)' : undefined,
    );
  }
}

function fileProblem(file: string, why: string, hint?: string): { ok: false; problems: Problem[] } {
  return {
    ok: false,
    problems: [
      { code: 'file', file, line: 1, col: 1, path: '(root)', message: `the file ${why}`, ...(hint ? { hint } : {}) },
    ],
  };
}

/**
 * Loads a plan from YAML or JSON text: a list of items, or `{plan: [...]}`. With a scenario,
 * the plan is also checked against its tools and inputs (`checkPlan`).
 *
 * @example
 * loadPlanText('- verify_recipient: { email: bob@acme.example }\n- finish\n', 'plan.yaml', scenario)
 */
export function loadPlanText(text: string, file: string, scenario?: Scenario): Result<PlanItem[]> {
  const src = parseYamlSource(text, file);
  if (!src.ok) return src;
  const doc = src.value.value;
  let prefix: FieldPath = [];
  let value: unknown = doc;
  if (doc !== null && typeof doc === 'object' && !Array.isArray(doc)) {
    const keys = Object.keys(doc);
    const extra = keys.filter((k) => k !== 'plan');
    if (extra.length > 0 || !keys.includes('plan')) {
      const problems: Problem[] = extra.map((k) => ({
        code: 'unknown_key',
        file,
        ...src.value.locate([k], { at: 'key' }),
        path: k === '' ? '""' : k,
        message: `unknown key "${k}" in a plan file`,
        hint: didYouMean(k, ['plan']) ?? 'a plan file is a list of items, or {plan: [...]}',
      }));
      // A misspelt "plan:" is reported once, by its did-you-mean.
      if (!keys.includes('plan') && !problems.some((p) => p.hint?.startsWith('did you mean'))) {
        problems.push({
          code: 'plan',
          file,
          line: 1,
          col: 1,
          path: '(root)',
          message: 'a plan file has no "plan:" list',
          hint: 'write a list of items, or plan: [...]',
        });
      }
      return { ok: false, problems: sortProblems(problems) };
    }
    prefix = ['plan'];
    value = (doc as Record<string, unknown>).plan;
  } else if (!Array.isArray(doc)) {
    return {
      ok: false,
      problems: [
        {
          code: 'plan',
          file,
          line: 1,
          col: 1,
          path: '(root)',
          message: doc === null ? 'the plan file is empty' : 'a plan is a list of items',
          hint: 'items are "finish", {parallel: [calls]}, or a call {tool_name: {args}}',
        },
      ],
    };
  }
  const parsed = Plan.safeParse(value, { reportInput: true });
  if (!parsed.success) {
    return {
      ok: false,
      problems: sortProblems(schemaProblems(parsed.error.issues, src.value, { schema: Plan, prefix })),
    };
  }
  if (scenario) {
    const problems = checkPlan(parsed.data, scenario, src.value, prefix);
    if (problems.length > 0) return { ok: false, problems: sortProblems(problems) };
  }
  return { ok: true, value: parsed.data };
}

/**
 * Reads and loads a plan file (see `loadPlanText`).
 *
 * @example
 * const r = loadPlanFile('plans/eager.yaml', loaded.scenario);
 */
export function loadPlanFile(path: string, scenario?: Scenario): Result<PlanItem[]> {
  const text = readSource(path);
  if (!text.ok) return text;
  return loadPlanText(text.value, path, scenario);
}
