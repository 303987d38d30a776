/**
 * Loader fuzzing: whatever the text, loadScenarioText and loadPlanText return a value
 * (loaded, or problems) and never throw; every problem is positioned (line and col >= 1,
 * integers), with a message and a hint. Inputs: random YAML documents, random strings,
 * and mutations of the bundled scenarios (structural: a key dropped or misspelt, a value
 * of the wrong type, a tool duplicated, a class or string edited; textual: truncated, or
 * random characters inserted).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { formatProblem, type Result } from '../../harness/core/errors.ts';
import { loadPlanText, loadScenarioText } from '../../harness/engine/loader/load.ts';
import { walk } from '../../harness/engine/loader/glob.ts';
import { MAX_NESTING_DEPTH } from '../../harness/engine/loader/yaml-source.ts';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * Runs per property that loads whole scenarios (a load of a bundled one is 10-20 ms); ONEWAY_FUZZ_RUNS=5000
 * for a longer hunt. fast-check draws a new seed every run of the suite (printed when a property
 * fails), so each CI run explores other inputs. The cheap properties (short strings, truncated
 * files, which fail early) take twice as many.
 */
const RUNS = Number(process.env.ONEWAY_FUZZ_RUNS) || 100;
const CHEAP_RUNS = 2 * RUNS;

const bundled = (await walk(join(REPO, 'scenarios')))
  .filter((e) => !e.dir && e.path.endsWith('.yaml'))
  .map((e) => e.path)
  .sort()
  .map((file) => ({ file, text: readFileSync(file, 'utf8') }));
const invoice = loadScenarioText(readFileSync(join(REPO, 'scenarios/billing/invoice-and-notify.yaml'), 'utf8'), 'invoice-and-notify.yaml');
if (!invoice.ok) throw new Error('the bundled invoice-and-notify scenario does not load');
const scenario = invoice.value.scenario;

/** Loaded, or problems that are all positioned inside the text and explained. Returns a reason when not. */
function badResult(r: Result<unknown>, text: string): string | undefined {
  if (r.ok) return undefined;
  if (r.problems.length === 0) return 'no problems, yet not loaded';
  // Lines end at \n and columns count UTF-16 units, as in the yaml package, editors and LSP.
  const lines = text.split('\n');
  for (const p of r.problems) {
    const shown = formatProblem(p);
    if (!Number.isInteger(p.line) || p.line < 1 || p.line > lines.length) return `line ${p.line} of ${lines.length}: ${shown}`;
    const width = (lines[p.line - 1] ?? '').length;
    if (!Number.isInteger(p.col) || p.col < 1 || p.col > width + 1) return `col ${p.col} of a line ${width} long: ${shown}`;
    if (typeof p.message !== 'string' || p.message.trim() === '') return `empty message: ${shown}`;
    if (typeof p.hint !== 'string' || p.hint.trim() === '') return `no hint: ${shown}`;
    if (typeof p.path !== 'string' || p.path === '') return `no path: ${shown}`;
  }
  return undefined;
}

/**
 * Loads text as a scenario, and unless `scenarioOnly` as a plan (against invoice-and-notify); each must
 * behave. Returns the scenario load's result.
 */
function loadWellBehaved(text: string, scenarioOnly = false): ReturnType<typeof loadScenarioText> {
  const well = <R extends Result<unknown>>(load: () => R): R => {
    let r: R;
    try {
      r = load();
    } catch (e) {
      throw new Error(`the loader threw on:\n${text.slice(0, 2000)}\n${(e as Error).stack}`);
    }
    const bad = badResult(r, text);
    if (bad) throw new Error(`${bad}\nfor:\n${text.slice(0, 2000)}`);
    return r;
  };
  const loaded = well(() => loadScenarioText(text, 'fuzz.yaml'));
  if (!scenarioOnly) well(() => loadPlanText(text, 'fuzz.yaml', scenario));
  return loaded;
}

/** loadWellBehaved, returning nothing: what a property returns is its verdict. */
function expectWellBehaved(text: string, scenarioOnly = false): void {
  loadWellBehaved(text, scenarioOnly);
}

// YAML-significant characters, so random text exercises the parser's error paths.
const yamlChar = fc.constantFrom(...':{}[]#&*!|>\'"%@`-?,.=()\\ \t\n\r\u0000\u001f\u00a0\ufeff\u2028éx1{{}}'.split(''));
const yamlText = fc.oneof(fc.string({ unit: yamlChar, maxLength: 80 }), fc.string({ maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 40 }));

describe('random documents', () => {
  it('serialised fc.anything / fc.jsonValue never crash the loader', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.anything({ maxDepth: 3 })), fc.boolean(), (value, flow) => {
        let text: string | undefined;
        try {
          text = stringify(value, { collectionStyle: flow ? 'flow' : 'any' });
        } catch {
          return; // the yaml package cannot write every JS value (e.g. some symbols); nothing to load
        }
        // undefined (and functions) serialise to nothing: there is no text to load.
        if (typeof text === 'string') expectWellBehaved(text);
      }),
      { numRuns: RUNS },
    );
  });

  it('random strings never crash the loader', () => {
    fc.assert(fc.property(yamlText, (text) => expectWellBehaved(text)), { numRuns: CHEAP_RUNS });
  });

  it('random scenario-shaped mappings never crash the loader', () => {
    const scalar = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean(), fc.constant(null), fc.string({ unit: yamlChar, maxLength: 12 }));
    const tool = fc.record(
      {
        name: scalar,
        reversibility: fc.oneof(scalar, fc.constantFrom('reversible', 'compensable', 'irreversible'), fc.array(fc.record({ when: scalar, class: scalar }, { requiredKeys: [] }), { maxLength: 3 })),
        compensating_operation: scalar,
        preconditions: fc.array(scalar, { maxLength: 3 }),
        parameters: fc.oneof(scalar, fc.record({ type: scalar, properties: fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(scalar, fc.constant({ type: 'string' }))), required: fc.array(scalar, { maxLength: 2 }) })),
        effects: fc.array(fc.dictionary(fc.constantFrom('insert', 'update', 'delete', 'establish', 'revoke', 'create'), scalar, { maxKeys: 2 }), { maxLength: 3 }),
        reconciles: fc.array(scalar, { maxLength: 2 }),
        kind: fc.oneof(scalar, fc.constantFrom('action', 'approval')),
      },
      { requiredKeys: [] },
    );
    const doc = fc.record(
      {
        id: scalar,
        title: scalar,
        task: scalar,
        inputs: fc.dictionary(fc.string({ maxLength: 6 }), scalar, { maxKeys: 3 }),
        deployment: fc.dictionary(fc.string({ maxLength: 6 }), scalar, { maxKeys: 3 }),
        tools: fc.oneof(scalar, fc.array(tool, { maxLength: 3 })),
        goal: fc.oneof(scalar, fc.array(scalar, { maxLength: 3 })),
        approvals: fc.dictionary(fc.string({ maxLength: 6 }), scalar, { maxKeys: 3 }),
        reference_plan: fc.array(fc.oneof(scalar, fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(scalar, fc.dictionary(fc.string({ maxLength: 4 }), scalar)))), { maxLength: 3 }),
        expect: fc.dictionary(fc.string({ maxLength: 6 }), fc.dictionary(fc.string({ maxLength: 10 }), scalar)),
      },
      { requiredKeys: [] },
    );
    fc.assert(fc.property(doc, (d) => expectWellBehaved(stringify(d))), { numRuns: RUNS });
  });
});

describe('deep nesting of every kind', () => {
  // Each pattern nests `depth` levels; past the limit the file is refused before the parser
  // recurses, below it the file parses. Either way: a value, never a crash or a dead process.
  const patterns: Record<string, (depth: number) => string> = {
    'compact dashes': (d) => `${'- '.repeat(d)}x\n`,
    // Valid YAML, but the loader refuses keys that are collections: only the limit is checked.
    'compact complex keys': (d) => `${'? '.repeat(d)}x\n`,
    'indented mappings': (d) => Array.from({ length: d }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1\n',
    'indented sequences': (d) => Array.from({ length: d }, (_, i) => `${' '.repeat(i)}-`).join('\n') + ' 1\n',
    'items holding mappings': (d) => Array.from({ length: Math.max(1, d >> 1) }, (_, i) => `${' '.repeat(2 * i)}- a:`).join('\n') + ' 1\n',
    brackets: (d) => `a: ${'['.repeat(d)}${']'.repeat(d)}\n`,
    'brackets in nested blocks': (d) => Array.from({ length: d >> 1 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ` ${'{a: '.repeat(d >> 1)}1${'}'.repeat(d >> 1)}\n`,
  };
  // The depth is estimated without parsing: allow it a few levels either way.
  const SLACK = 4;
  it.each(Object.keys(patterns))('%s: refused before parsing past the limit, parsed below it, the same every time', (name) => {
    const make = patterns[name] as (depth: number) => string;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2000 }), (depth) => {
        const text = make(depth);
        const first = loadWellBehaved(text);
        expect(loadScenarioText(text, 'fuzz.yaml')).toEqual(first);
        const limit = !first.ok && first.problems.some((p) => p.code === 'yaml_limit' && p.message.includes(`more than ${MAX_NESTING_DEPTH}`));
        if (depth > MAX_NESTING_DEPTH + SLACK) expect(limit, `depth ${depth}`).toBe(true);
        if (depth < MAX_NESTING_DEPTH - SLACK && name !== 'compact complex keys') expect(!first.ok && first.problems.some((p) => p.code === 'yaml_limit' || p.code === 'yaml_syntax'), `depth ${depth}`).toBe(false);
      }),
      { numRuns: 25, examples: [[MAX_NESTING_DEPTH - SLACK - 1], [MAX_NESTING_DEPTH + SLACK + 1], [600], [2000]] },
    );
  });
});

type Path = (string | number)[];
type Doc = Record<string, unknown>;

/** Every path in a document, with whether it ends at a mapping key. */
function allPaths(value: unknown, base: Path = [], out: { path: Path; key: boolean }[] = []): { path: Path; key: boolean }[] {
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      out.push({ path: [...base, i], key: false });
      allPaths(v, [...base, i], out);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push({ path: [...base, k], key: true });
      allPaths(v, [...base, k], out);
    }
  }
  return out;
}

function parentOf(doc: unknown, path: Path): unknown {
  let cur = doc;
  for (const seg of path.slice(0, -1)) cur = (cur as Record<string | number, unknown>)[seg];
  return cur;
}

/** One char edit: insert, delete or replace at a position. */
function charEdit(s: string, at: number, op: number, ch: string): string {
  const i = s.length === 0 ? 0 : at % (s.length + 1);
  if (op === 0 || s.length === 0) return s.slice(0, i) + ch + s.slice(i);
  if (op === 1) return s.slice(0, Math.min(i, s.length - 1)) + s.slice(Math.min(i, s.length - 1) + 1);
  return s.slice(0, Math.min(i, s.length - 1)) + ch + s.slice(Math.min(i, s.length - 1) + 1);
}

const wrongValue = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 10 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
  fc.constantFrom('', '{{args.x}}', '{{result.id}}', '{{inputs.nope}}', 'x(a=', 'x(a="\\q")', 'deployment.pitr_hours >= ', '*', '- finish'),
);
const classString = fc.oneof(
  fc.constantFrom('reversible', 'compensable', 'irreversible', 'irreversable', 'Irreversible', ' irreversible', 'reversable', ''),
  fc.string({ maxLength: 12 }),
  fc.array(
    fc.record(
      { when: fc.oneof(fc.string({ unit: yamlChar, maxLength: 30 }), fc.constantFrom('deployment.pitr_hours >= 24', 'deployment.env == "prod"', 'deployment.x.y != 3', 'deployment.pitr_hours = 24', 'pitr_hours > 1', 'deployment.a <= true')), class: fc.constantFrom('reversible', 'compensable', 'irreversible', 'nope') },
      { requiredKeys: ['class'] },
    ),
    { maxLength: 3 },
  ),
);

// Fact text: names, arguments, quotes with escapes (valid or not), templates.
const factChar = fc.constantFrom(...'ab_.-=(),"\\{}* 1nqu'.split(''));
const factText = fc.oneof(
  fc.string({ unit: factChar, maxLength: 30 }),
  fc.string({ unit: factChar, maxLength: 12 }).map((v) => `done(note="${v}")`),
  fc.string({ unit: factChar, maxLength: 12 }).map((v) => `done(to={{args.${v}}})`),
);
/** Where facts live in a scenario. */
const isFactPath = (p: Path): boolean => {
  const s = p.map(String);
  const last = s[s.length - 1] ?? '';
  const parent = s[s.length - 2] ?? '';
  return last === 'establish' || last === 'revoke' || ['preconditions', 'goal', 'forbidden', 'facts'].includes(parent);
};

type Mutation =
  | { kind: 'drop'; pick: number }
  | { kind: 'rename'; pick: number; at: number; op: number; ch: string }
  | { kind: 'wrong-type'; pick: number; value: unknown }
  | { kind: 'duplicate-tool'; pick: number; rename: boolean }
  | { kind: 'class'; pick: number; value: unknown }
  | { kind: 'edit-string'; pick: number; at: number; op: number; ch: string }
  | { kind: 'fact'; pick: number; text: string; at: number; replace: boolean };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('drop' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('rename' as const), pick: fc.nat(), at: fc.nat(), op: fc.nat({ max: 2 }), ch: yamlChar }),
  fc.record({ kind: fc.constant('wrong-type' as const), pick: fc.nat(), value: wrongValue }),
  fc.record({ kind: fc.constant('duplicate-tool' as const), pick: fc.nat(), rename: fc.boolean() }),
  fc.record({ kind: fc.constant('class' as const), pick: fc.nat(), value: classString }),
  fc.record({ kind: fc.constant('edit-string' as const), pick: fc.nat(), at: fc.nat(), op: fc.nat({ max: 2 }), ch: yamlChar }),
  fc.record({ kind: fc.constant('fact' as const), pick: fc.nat(), text: factText, at: fc.nat(), replace: fc.boolean() }),
);

/** Applies a structural mutation to a copy of the document. */
function mutate(doc: Doc, m: Mutation): Doc {
  const d = structuredClone(doc);
  const paths = allPaths(d);
  const keyPaths = paths.filter((p) => p.key);
  const tools = Array.isArray(d.tools) ? (d.tools as Doc[]) : [];
  switch (m.kind) {
    case 'drop':
    case 'rename': {
      const p = keyPaths[m.pick % keyPaths.length]?.path;
      if (!p) return d;
      const parent = parentOf(d, p) as Doc;
      const key = String(p[p.length - 1]);
      const value = parent[key];
      delete parent[key];
      if (m.kind === 'rename') parent[charEdit(key, m.at, m.op, m.ch)] = value;
      return d;
    }
    case 'wrong-type': {
      const p = paths[m.pick % paths.length]?.path;
      if (!p) return d;
      (parentOf(d, p) as Record<string | number, unknown>)[p[p.length - 1] as string | number] = m.value;
      return d;
    }
    case 'duplicate-tool': {
      const t = tools[m.pick % Math.max(1, tools.length)];
      if (t) tools.push({ ...structuredClone(t), ...(m.rename ? { name: `${String(t.name)}_copy` } : {}) });
      return d;
    }
    case 'class': {
      const t = tools[m.pick % Math.max(1, tools.length)];
      if (t) t.reversibility = m.value;
      return d;
    }
    case 'edit-string': {
      const strings = paths.filter((p) => typeof (parentOf(d, p.path) as Record<string | number, unknown>)[p.path[p.path.length - 1] as string | number] === 'string');
      const p = strings[m.pick % Math.max(1, strings.length)]?.path;
      if (!p) return d;
      const parent = parentOf(d, p) as Record<string | number, unknown>;
      const last = p[p.length - 1] as string | number;
      parent[last] = charEdit(parent[last] as string, m.at, m.op, m.ch);
      return d;
    }
    case 'fact': {
      const facts = paths.filter((p) => isFactPath(p.path) && typeof (parentOf(d, p.path) as Record<string | number, unknown>)[p.path[p.path.length - 1] as string | number] === 'string');
      const p = facts[m.pick % Math.max(1, facts.length)]?.path;
      if (!p) return d;
      const parent = parentOf(d, p) as Record<string | number, unknown>;
      const last = p[p.length - 1] as string | number;
      const old = parent[last] as string;
      const at = m.at % (old.length + 1);
      parent[last] = m.replace ? m.text : old.slice(0, at) + m.text + old.slice(at);
      return d;
    }
  }
}

describe('mutations of the bundled scenarios', () => {
  const which = fc.nat({ max: bundled.length - 1 });

  it('every bundled scenario loads as is (the mutations start from valid files)', () => {
    for (const b of bundled) expect(loadScenarioText(b.text, b.file).ok, b.file).toBe(true);
  });

  it('structural mutations (drop or misspell a key, wrong-type value, duplicate tool, class, string or fact edit) never crash the loader', () => {
    const docs = bundled.map((b) => parse(b.text) as Doc);
    fc.assert(
      fc.property(which, fc.array(mutation, { minLength: 1, maxLength: 3 }), (i, ms) => {
        const doc = ms.reduce((d, m) => mutate(d, m), docs[i] as Doc);
        expectWellBehaved(stringify(doc), true);
      }),
      { numRuns: RUNS },
    );
  });

  it('truncating the text anywhere never crashes the loader', () => {
    fc.assert(
      fc.property(which, fc.double({ min: 0, max: 1, noNaN: true }), (i, f) => {
        const text = bundled[i]?.text ?? '';
        expectWellBehaved(text.slice(0, Math.floor(text.length * f)), true);
      }),
      { numRuns: CHEAP_RUNS },
    );
  });

  it('inserting random characters anywhere never crashes the loader', () => {
    fc.assert(
      fc.property(which, fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), yamlText), { minLength: 1, maxLength: 3 }), (i, edits) => {
        let text = bundled[i]?.text ?? '';
        for (const [f, s] of edits) {
          const at = Math.floor(text.length * f);
          text = text.slice(0, at) + s + text.slice(at);
        }
        expectWellBehaved(text, true);
      }),
      { numRuns: RUNS },
    );
  });
});
