/**
 * What `oneway guard` enforces, read from files with positioned problems:
 *
 * - `--tools=FILE`: a scenario file (the one a team evaluated), or a tools block: a
 *   YAML or JSON mapping with `tools:` (and optionally `deployment:` and
 *   `inputs:`) and none of the scenario's `id`, `title`, `task` and `goal`, such
 *   as the `tools:` of what `oneway import` writes. Both are checked by the
 *   scenario loader, with every problem at its line and column. What only makes
 *   sense in production is checked here too: `{{id}}` (the sandbox's generated
 *   id) has no value in front of a real server, so an effect or compensation
 *   that uses it is a problem, with the hint to read the id from the reply.
 * - `--facts=FILE`: the facts known before the first call (a list of facts, or
 *   `facts: [...]`), ground atoms whose templates may read the file's inputs and
 *   deployment, as a scenario's world facts do.
 */
import { basename } from 'node:path';
import { formatPath, type Problem, type Result } from '../../core/errors.ts';
import { formatFact, parseFact } from '../../core/facts/fact.ts';
import { renderFact } from '../../core/facts/template.ts';
import type { Scenario } from '../../core/scenario.ts';
import { templatePaths } from '../../core/templates/render.ts';
import { readSource, sortProblems, validateScenario, type LoadedScenario } from '../../engine/loader/load.ts';
import { parseYamlSource, type YamlSource } from '../../engine/loader/yaml-source.ts';
import { scenarioId } from '../convert/import-mcp.ts';

/** The keys that make a file a scenario rather than a tools block. */
const SCENARIO_ONLY = ['id', 'title', 'task', 'goal'] as const;

/** A loaded tools file: the declarations as a scenario, and whether the file was only a tools block. */
export interface GuardTools extends LoadedScenario {
  block: boolean;
}

const isMapping = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Reads `--tools=FILE`: a scenario, or a tools block (see the module comment).
 *
 * @example
 * const r = loadGuardTools('memory-tools.yaml');
 * if (!r.ok) for (const p of r.problems) console.error(formatProblem(p));
 */
export function loadGuardTools(path: string): Result<GuardTools> {
  const text = readSource(path);
  if (!text.ok) return text;
  const src = parseYamlSource(text.value, path);
  if (!src.ok) return src;
  const { source, block } = asToolsSource(src.value, path);
  const loaded = validateScenario(source);
  if (!loaded.ok) return loaded;
  const problems = productionProblems(loaded.value.scenario, source);
  if (problems.length > 0) return { ok: false, problems: sortProblems(problems) };
  return { ok: true, value: { ...loaded.value, block } };
}

/**
 * A tools file's text as the scenario loader reads it: a scenario as it is, and a tools block (only
 * `tools:`, `deployment:`, `inputs:`...) with placeholders for what a scenario needs and a tools
 * block does not say (nothing in the guard or lint reads them); `block` says which it was.
 */
export function asToolsSource(src: YamlSource, path: string): { source: YamlSource; block: boolean } {
  const doc = src.value;
  const block = isToolsBlock(doc);
  if (!block) return { source: src, block };
  return {
    source: {
      ...src,
      value: {
        ...doc,
        id: scenarioId(basename(path)),
        title: `tools of ${basename(path)}`,
        task: 'the tools a guard enforces',
        goal: ['guarded()'],
      },
    },
    block,
  };
}

/** Whether a parsed document is a tools block: a mapping with `tools:` and none of a scenario's own keys. */
export const isToolsBlock = (doc: unknown): doc is Record<string, unknown> =>
  isMapping(doc) && Object.hasOwn(doc, 'tools') && SCENARIO_ONLY.every((k) => !Object.hasOwn(doc, k));

/** Declarations a real server cannot honour: `{{id}}` in what the guard renders (effects and compensations), and lookups and validation (the server's tables). */
export function productionProblems(s: Scenario, src: YamlSource): Problem[] {
  const out: Problem[] = [];
  const check = (value: unknown, path: (string | number)[]): void => {
    if (typeof value === 'string') {
      if (templatePaths(value).some((p) => p === 'id' || p.startsWith('id.') || p.startsWith('id['))) {
        out.push({
          code: 'template',
          file: src.file,
          ...src.locate(path),
          path: formatPath(path),
          message: '{{id}} is the id the evaluation sandbox generates; in front of a real server it has no value',
          hint: "read the id from the server's reply instead, e.g. {{result.id}}",
        });
      }
    } else if (Array.isArray(value)) value.forEach((v, i) => check(v, [...path, i]));
    else if (isMapping(value)) for (const [k, v] of Object.entries(value)) check(v, [...path, k]);
  };
  s.tools.forEach((t, i) => {
    t.effects.forEach((e, k) => check(e, ['tools', i, 'effects', k]));
    if (t.compensation_args) check(t.compensation_args, ['tools', i, 'compensation_args']);
    // The guard sees calls and replies, never the server's tables: what reads them cannot be judged.
    for (const field of ['lookups', 'validate'] as const) {
      const empty = field === 'lookups' ? Object.keys(t.lookups).length === 0 : t.validate.length === 0;
      if (empty) continue;
      out.push({
        code: 'schema',
        file: src.file,
        ...src.locate(['tools', i, field]),
        path: formatPath(['tools', i, field]),
        message: `${field} reads the server's tables, which oneway guard does not see: it cannot judge ${t.name}'s calls by them`,
        hint: 'in front of a real server, state what must hold as facts that earlier calls establish (e.g. order_read(order={{args.order_id}}) from get_order); lookups and validate are for evaluation',
      });
    }
  });
  return out;
}

/**
 * Reads `--facts=FILE`: the facts known before the first call, rendered (templates over the tools
 * file's inputs and deployment) and in their canonical text.
 *
 * @example
 * loadKnownFacts('facts.yaml', tools.scenario) // { ok: true, value: ['customer_exists(customer=acme)'] }
 */
export function loadKnownFacts(path: string, scenario: Scenario): Result<string[]> {
  const text = readSource(path);
  if (!text.ok) return text;
  const src = parseYamlSource(text.value, path);
  if (!src.ok) return src;
  const doc = src.value.value;
  const problem = (at: (string | number)[], message: string, hint: string): Problem => ({
    code: 'fact_syntax',
    file: path,
    ...src.value.locate(at),
    path: formatPath(at),
    message,
    hint,
  });
  const FORM = 'a facts file is a list of facts, or facts: [...], each like customer_exists(customer=acme)';
  let list: unknown = doc;
  let prefix: (string | number)[] = [];
  if (isMapping(doc)) {
    const extra = Object.keys(doc).filter((k) => k !== 'facts');
    if (extra.length > 0 || !Object.hasOwn(doc, 'facts'))
      return {
        ok: false,
        problems: [
          {
            ...problem([extra[0] ?? ''], `unknown key "${extra[0] ?? ''}" in a facts file`, FORM),
            code: 'unknown_key',
          },
        ],
      };
    list = doc.facts;
    prefix = ['facts'];
  }
  if (list === null || list === undefined) return { ok: true, value: [] };
  if (!Array.isArray(list)) return { ok: false, problems: [problem(prefix, 'the facts are not a list', FORM)] };
  const ctx = { inputs: scenario.inputs, deployment: scenario.deployment };
  const problems: Problem[] = [];
  const facts: string[] = [];
  list.forEach((f, i) => {
    const at = [...prefix, i];
    if (typeof f !== 'string') return void problems.push(problem(at, 'a fact is a string', FORM));
    const parsed = parseFact(f);
    if (!parsed.ok) return void problems.push(problem(at, `cannot read the fact "${f}": ${parsed.message}`, FORM));
    if (parsed.value.wild.length > 0)
      return void problems.push(
        problem(at, `"${f}" has a wildcard: a known fact is ground`, 'give every value, e.g. region=eu-west-1'),
      );
    facts.push(formatFact(renderFact(f, ctx, 'empty')));
  });
  return problems.length > 0 ? { ok: false, problems: sortProblems(problems) } : { ok: true, value: facts };
}
