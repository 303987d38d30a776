/**
 * Reviewing scenario declarations beyond the schema. Each file is parsed with
 * positions and checked against the schema; a file that fails the schema is
 * reported (its problems as lint errors) and skipped. Files that pass get the
 * loader's semantic checks and every lint rule; where a rule and the loader
 * report the same spot, the rule's finding (with its id and hint) is kept.
 */
import { dirname, resolve } from 'node:path';
import type { Problem } from '../../core/errors.ts';
import { readSource, scenarioSource, sortProblems, type LoadedScenario } from '../../engine/loader/load.ts';
import { displayPath, planNotScenario, resolveScenarios, type ResolveOptions } from '../../engine/loader/resolve.ts';
import { schemaProblems } from '../../engine/loader/schema-problems.ts';
import { parseYamlSource } from '../../engine/loader/yaml-source.ts';
import { checkScenario } from '../../engine/loader/semantics.ts';
import { Scenario } from '../../core/scenario.ts';
import { Policy } from '../../engine/guard/policy.ts';
import { asToolsSource, isToolsBlock, productionProblems } from '../guard-proxy/tools-file.ts';
import { policyFindings } from './policy.ts';
import { LINT_RULES } from './rules/index.ts';
import { findingOf as fromProblem, type LintFinding, type LintTarget, type Rule } from './types.ts';

/** What a linted file is: a scenario, a tools file `oneway guard` enforces, or a guard policy. */
export type LintKind = 'scenario' | 'tools' | 'policy';

export interface LintInput {
  /** The file name shown in findings. */
  file: string;
  text: string;
  /** What the file is; absent: told from its keys (`kindOf`). */
  kind?: LintKind | undefined;
  /** For a tools file: the facts the guard knows at the start (its `--facts`; a scenario's world is not read). */
  facts?: readonly string[] | undefined;
  /** The directory the file is in, when `file` is a name for display (shared files are found from it). */
  dir?: string;
}

export interface LintReport {
  findings: LintFinding[];
  /** Files linted (including those that failed to load). */
  files: string[];
  /** Specs that named nothing (a usage problem, not a finding). */
  specProblems: Problem[];
  /** Files of the directories and globs left out as plans (lists of calls, not scenarios). */
  plans: string[];
}

interface Prepared {
  target?: LintTarget;
  load: LintFinding[];
}

/** The keys of a guard policy file. */
const POLICY_KEYS = Object.keys(Policy.shape);

/**
 * What a parsed file is, from its keys: a tools block (`tools:` and none of a scenario's own keys)
 * is a tools file; a mapping with a policy key (`irreversible:`...) and neither `tools:` nor a
 * scenario's keys is a policy; anything else is read as a scenario.
 */
function kindOf(doc: unknown): LintKind {
  if (isToolsBlock(doc)) return 'tools';
  const isMap = doc !== null && typeof doc === 'object' && !Array.isArray(doc);
  if (
    isMap &&
    !Object.hasOwn(doc, 'tools') &&
    !Object.hasOwn(doc, 'id') &&
    POLICY_KEYS.some((k) => Object.hasOwn(doc, k))
  )
    return 'policy';
  return 'scenario';
}

function prepare(input: LintInput): Prepared {
  const src = scenarioSource(input.text, input.file, input.dir);
  if (!src.ok) return { load: src.problems.map(fromProblem) };
  const kind = input.kind ?? kindOf(src.value.value);
  if (kind === 'policy') return { load: policyFindings(src.value) };
  const { source } = kind === 'tools' ? asToolsSource(src.value, input.file) : { source: src.value };
  const parsed = Scenario.safeParse(source.value, { reportInput: true });
  if (!parsed.success) {
    // A plan named here (a list of calls) is said to be one, not read as a scenario missing every field.
    const plan = input.kind === undefined ? planNotScenario(input.text, input.file) : undefined;
    if (plan) return { load: [fromProblem(plan)] };
    return { load: sortProblems(schemaProblems(parsed.error.issues, source)).map(fromProblem) };
  }
  // What a guard knows at the start is its --facts, never a scenario's world: the rules see those.
  const scenario =
    kind === 'tools'
      ? { ...parsed.data, world: { ...parsed.data.world, facts: [...(input.facts ?? [])] } }
      : parsed.data;
  const target: LintTarget = {
    file: input.file,
    scenario,
    locate: (path, opts) => src.value.locate(path, opts),
    ...(kind === 'tools' ? { kind } : {}),
  };
  const load = checkScenario(parsed.data, source);
  if (kind === 'tools') load.push(...productionProblems(parsed.data, source));
  return { target, load: load.map(fromProblem) };
}

/**
 * Lints scenario texts together (drift is found across them).
 *
 * @example
 * const findings = lintTexts([{ file: 'a.yaml', text }]);
 * const failed = findings.some((f) => f.severity === 'error');
 */
export function lintTexts(inputs: readonly LintInput[], rules: readonly Rule[] = LINT_RULES): LintFinding[] {
  const prepared = inputs.map(prepare);
  const all = prepared.flatMap((p) => (p.target ? [p.target] : []));
  const out: LintFinding[] = [];
  for (const p of prepared) {
    if (!p.target) {
      out.push(...p.load);
      continue;
    }
    const ctx = { ...p.target, all };
    const found = rules.flatMap((r) => r.check(ctx));
    const spots = new Set(found.map((f) => `${f.line}:${f.col}:${f.path}`));
    out.push(...found, ...p.load.filter((l) => !spots.has(`${l.line}:${l.col}:${l.path}`)));
  }
  return sortFindings(out);
}

const RANK = { error: 0, warning: 1, info: 2 } as const;

function sortFindings(findings: readonly LintFinding[]): LintFinding[] {
  return [...findings].sort((a, b) =>
    a.file < b.file
      ? -1
      : a.file > b.file
        ? 1
        : a.line - b.line || a.col - b.col || RANK[a.severity] - RANK[b.severity] || (a.rule < b.rule ? -1 : 1),
  );
}

/**
 * Lints the scenario files that specs name (files, directories, globs, ids, as `--scenario` takes them).
 *
 * @example
 * const report = await lintPaths(['scenarios/'], { cwd: process.cwd(), root: 'scenarios' });
 */
export async function lintPaths(
  specs: string[],
  opts: ResolveOptions & { kind?: LintKind | undefined },
  rules: readonly Rule[] = LINT_RULES,
): Promise<LintReport> {
  const resolved = await resolveScenarios(specs, opts);
  const specProblems = resolved.problems.filter((p) => p.code === 'spec');
  const duplicates = resolved.problems.filter((p) => p.code === 'duplicate');
  // Files that failed to load are linted too: their load problems are findings, and their siblings are compared with them.
  const files = new Set<string>(resolved.loaded.map((l) => l.file));
  for (const p of resolved.problems) if (p.code !== 'spec') files.add(resolve(opts.cwd, p.file));
  // A tools block (`tools:` alone) is what a shared file looks like: resolveScenarios leaves it out,
  // lint reads it as the tools file it is (and any shared file as what --as says), unless a scenario
  // linted here extends it: then it is a shared file, checked with each scenario that extends it.
  const extended = extendedFiles([...files]);
  for (const abs of resolved.shared) {
    if (extended.has(abs)) continue;
    const text = readSource(abs);
    const src = text.ok ? parseYamlSource(text.value, abs) : undefined;
    if (opts.kind !== undefined || (src?.ok && isToolsBlock(src.value.value))) files.add(abs);
  }
  const inputs: LintInput[] = [];
  const unreadable: LintFinding[] = [];
  for (const abs of [...files].sort()) {
    const file = displayPath(abs, opts.cwd);
    const text = readSource(abs);
    if (!text.ok) unreadable.push(...text.problems.map((p) => fromProblem({ ...p, file })));
    else inputs.push({ file, text: text.value, kind: opts.kind, dir: dirname(abs) });
  }
  const findings = [
    ...lintTexts(inputs, rules),
    ...unreadable,
    ...duplicates.map((d) => ({ ...fromProblem(d), severity: 'warning' as const })),
  ];
  return {
    findings: sortFindings(findings),
    files: [...files].map((f) => displayPath(f, opts.cwd)).sort(),
    specProblems,
    plans: resolved.plans.map((f) => displayPath(f, opts.cwd)),
  };
}

/** The files that `files` name in `extends:`, absolute (a file that does not parse extends nothing here). */
function extendedFiles(files: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const abs of files) {
    const text = readSource(abs);
    const src = text.ok ? parseYamlSource(text.value, abs) : undefined;
    const doc = src?.ok ? src.value.value : undefined;
    const list =
      doc !== null && typeof doc === 'object' && !Array.isArray(doc)
        ? (doc as { extends?: unknown }).extends
        : undefined;
    for (const e of typeof list === 'string' ? [list] : Array.isArray(list) ? list : [])
      if (typeof e === 'string') out.add(resolve(dirname(abs), e));
  }
  return out;
}

/** Targets for scenarios that loaded: files named relative to `cwd` when inside it, positions found lazily. */
function loadedTargets(loaded: readonly LoadedScenario[], cwd: string): LintTarget[] {
  return loaded.map((l) => ({ file: displayPath(l.file, cwd), scenario: l.scenario, locate: l.locate }));
}

/** The rules' findings for `targets`, each reviewed beside every one of `all`. */
function check(targets: readonly LintTarget[], all: readonly LintTarget[], rules: readonly Rule[]): LintFinding[] {
  return sortFindings(targets.flatMap((target) => rules.flatMap((r) => r.check({ ...target, all }))));
}

/** The lint errors of scenarios that loaded; positions are found only for files with an error (most have none). */
function lintErrors(loaded: readonly LoadedScenario[], cwd: string): LintFinding[] {
  const all = loadedTargets(loaded, cwd);
  // The rules are cheap; parsing a file again for positions is not: a first pass without positions finds the
  // files (a rule places a finding only through finding(), types.ts: where it is never decides whether it is one).
  const nowhere = { line: 0, col: 0 };
  const unplaced = all.map((t) => ({ ...t, locate: () => nowhere }));
  const erring = new Set(
    check(unplaced, unplaced, LINT_RULES).flatMap((f) => (f.severity === 'error' ? [f.file] : [])),
  );
  if (erring.size === 0) return [];
  return check(
    all.filter((t) => erring.has(t.file)),
    all,
    LINT_RULES,
  ).filter((f) => f.severity === 'error');
}

/** What lint lets an evaluation run: see `lintGate`. */
export interface LintGate {
  /** The scenarios to run: those without lint errors, or every one when lint errors are allowed. */
  kept: LoadedScenario[];
  /** Each lint error of a refused scenario, as a load problem (code `lint`, the rule kept). */
  problems: Problem[];
  /** With lint errors allowed: the errors the scenarios run with (results list them). */
  allowed: LintFinding[];
}

/**
 * Lint errors are load errors: a scenario `oneway lint` finds an error in is refused like a file
 * that did not load (its errors become problems; the others still run), unless lint errors are
 * allowed (`--allow-lint-errors`, `allowLintErrors`), when it runs and its errors are kept to be
 * reported with the results. Warnings and notes never stop a scenario.
 *
 * @example
 * const gate = lintGate(resolved.loaded, cwd, false);
 * for (const p of gate.problems) console.error(formatProblem(p)); // file:line:col error [rule] path: message
 */
export function lintGate(loaded: readonly LoadedScenario[], cwd: string, allow: boolean): LintGate {
  const errors = lintErrors(loaded, cwd);
  if (allow || errors.length === 0) return { kept: [...loaded], problems: [], allowed: allow ? errors : [] };
  const refused = new Set(errors.map((f) => f.file));
  return {
    kept: loaded.filter((l) => !refused.has(displayPath(l.file, cwd))),
    problems: errors.map(({ rule, severity: _s, ...at }) => ({ code: 'lint', rule, severity: 'error', ...at })),
    allowed: [],
  };
}
