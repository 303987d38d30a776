/**
 * `oneway bench`'s loader-work case: how the CPU time of every place a scenario string is parsed
 * (facts, templates, class conditions, approvals keys, plan templates, unquoted facts in a [...]
 * list, loaded end to end) and of the parsers themselves (facts, conditions, templates,
 * unification) grows with adversarial strings: long runs of `{{`, spaces, `{`, `(`, `,`, `"`,
 * backslashes, nested templates, conditions cut before the literal. A `\{\{\s*([^{}]*?)\s*\}\}`
 * template pattern once took over a minute on "{{" and 6,000 spaces.
 *
 * The measure is relative: the CPU time this process spends (not the time that passes: other work
 * on the machine does not count) for an input 4× as long, against that for the shorter one (best of
 * a few tries, interleaved). Linear work gives about 4, quadratic 16, cubic 64. Two pairs of sizes:
 * small ones show cubic work before it takes long, large ones quadratic work that a load's constant
 * cost would hide in a small input. A timing moves with other work on the machine, so it is
 * measured here, never asserted in a test (test/bad-input/loader-work.test.ts checks that every
 * site answers these inputs, and this module's arithmetic on a clock it drives).
 */
import { parseFact } from '../../core/facts/fact.ts';
import { renderString, templateMatches, wholeTemplatePath } from '../../core/templates/render.ts';
import { matchValue } from '../../domain/planner-kit/unify.ts';
import { parseCondition } from '../../domain/rules/classes.ts';
import { loadPlanText, loadScenarioText } from '../../engine/loader/load.ts';
import { createRng } from '../../util/rng.ts';
import { round } from './stats.ts';

/** An adversarial string: a prefix, a run of one unit, a suffix. */
export interface Shape {
  prefix: string;
  unit: string;
  suffix: string;
}

/** The string of `shape` about `n` characters long. */
export const make = (s: Shape, n: number): string =>
  s.prefix + s.unit.repeat(Math.max(1, Math.floor(n / s.unit.length))) + s.suffix;

/** What random shapes are built from. */
export const PREFIXES = [
  '',
  '{{',
  '{{ ',
  'x(a=',
  'done(to={{args.',
  'deployment.a ==',
  'deployment',
  'inv-{{args.email}}',
];
export const UNITS = [
  '{{',
  ' ',
  '{',
  '(',
  ',',
  '"',
  '\\',
  '{{args.email}}',
  '{{ {{',
  '}}',
  '.a',
  'a=',
  '\t',
  ' \n',
  '-',
  '*',
];
export const SUFFIXES = ['', '}}', ')', 'x\ny', '!', '"', '}}}'];

/** The shapes known to have cost super-linear work somewhere, and a few more. */
export const KNOWN: readonly Shape[] = [
  { prefix: '{{', unit: ' ', suffix: '' }, // the 6.8 KB scenario
  { prefix: '{{', unit: ' ', suffix: 'x}}' },
  { prefix: 'deployment.a ==', unit: ' ', suffix: 'x\ny' },
  { prefix: '', unit: '{{', suffix: '' },
  { prefix: '', unit: '{{ {{', suffix: '}}' },
  { prefix: 'x(a=', unit: '"', suffix: '' },
  { prefix: 'x(a="', unit: '\\', suffix: '' },
  { prefix: 'x(', unit: 'a=b,', suffix: '' },
  { prefix: '', unit: '(', suffix: '' },
  { prefix: '', unit: ',', suffix: '' },
  { prefix: 'done(to={{args.', unit: '{', suffix: '}}' },
];

/** A place a string is parsed: called with the adversarial string. */
export type Site = (s: string) => unknown;

/** A small valid scenario whose strings the loader sites replace, one at a time (the loader tests' too). */
export const TINY_SCENARIO = `id: tiny
title: Tiny
task: Email bob.
inputs: { email: bob@acme.example }
world: { facts: [customer_exists(customer=acme)] }
approvals: { send_email: approve }
tools:
  - name: verify_recipient
    reversibility: reversible
    read_only: true
    parameters: { type: object, properties: { email: { type: string } }, required: [email] }
    effects: [ { establish: "recipient_verified(email={{args.email}})" } ]
  - name: send_email
    reversibility: irreversible
    preconditions: ["recipient_verified(email={{args.to}})"]
    parameters: { type: object, properties: { to: { type: string } }, required: [to] }
    effects: [ { insert: { table: outbox, row: { to: "{{args.to}}" } } }, { establish: "email_sent(to={{args.to}})" } ]
    returns: { message_id: "{{id}}" }
goal: ["email_sent(to={{inputs.email}})"]
`;

const tiny = loadScenarioText(TINY_SCENARIO, 'tiny.yaml');
if (!tiny.ok) throw new Error('internal: the loader-work case scenario does not load');
const scenario = tiny.value.scenario;
const q = (s: string) => JSON.stringify(s); // a YAML double-quoted scalar
const withText = (from: string, to: string) => loadScenarioText(TINY_SCENARIO.replace(from, to), 'w.yaml');

/** Every place a scenario string is parsed, loaded end to end: each returns a load's result. */
export const LOADER_SITES: Record<string, Site> = {
  'world fact': (s) => withText('customer_exists(customer=acme)', q(s)),
  precondition: (s) => withText('"recipient_verified(email={{args.to}})"', q(s)),
  goal: (s) => withText('"email_sent(to={{inputs.email}})"', q(s)),
  'establish effect': (s) => withText('"recipient_verified(email={{args.email}})"', q(s)),
  'row template': (s) => withText('row: { to: "{{args.to}}" }', `row: { to: ${q(s)} }`),
  'returns template': (s) => withText('message_id: "{{id}}"', `message_id: ${q(s)}`),
  'class condition': (s) =>
    withText(
      'reversibility: irreversible',
      `reversibility: [{ when: ${q(s)}, class: reversible }, { class: irreversible }]`,
    ),
  'approvals key': (s) => withText('approvals: { send_email: approve }', `approvals: { ${q(s)}: approve }`),
  // Unquoted in a [...] list: YAML's own errors, and the split-fact check that writes the quoted line.
  'flow fact list': (s) => withText('["recipient_verified(email={{args.to}})"]', `[${s}]`),
  'task text': (s) => withText('task: Email bob.', `task: ${q(s)}`),
  'plan template': (s) => loadPlanText(`- verify_recipient: { email: ${q(s)} }\n- finish\n`, 'p.yaml', scenario),
};

/** The parsers, called directly (no constant cost of a load to hide their work in). */
export const PARSER_SITES: Record<string, Site> = {
  parseFact: (s) => parseFact(s),
  parseCondition: (s) => parseCondition(s),
  templateMatches: (s) => templateMatches(s),
  wholeTemplatePath: (s) => wholeTemplatePath(s),
  renderString: (s) => renderString(s, { args: { a: 'x' }, inputs: {} }),
  'matchValue (template)': (s) => matchValue(s, `${'a'.repeat(s.length)}!`, {}),
  'matchValue (value)': (s) => matchValue('{{args.a}}a{{args.b}}{{args.a}}a{{result.x}}!', s, {}),
  'matchValue (both)': (s) => matchValue(s, s, {}),
};

/** The sizes of the pairs (n against 4n characters), and the floor under which a time is not measured, in ms. */
export interface Sizes {
  sizes: readonly number[];
  floorMs: number;
}
/** A load has a constant cost: a higher floor. */
const LOADER_SIZES: Sizes = { sizes: [1024, 16384], floorMs: 4 };
export const PARSER_SIZES: Sizes = { sizes: [2048, 16384], floorMs: 1 };

/** A clock in ms: the process's CPU time in the bench, one a test drives in its tests. */
export type Clock = () => number;

/** CPU time of this process so far, in ms (user and system): what a computation costs, however busy the machine. */
const cpuMs: Clock = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Best time of `fn(input)` over a few tries. */
function timeOf(fn: Site, input: string, tries: number, clock: Clock): number {
  let best = Infinity;
  for (let i = 0; i < tries; i++) {
    const t0 = clock();
    fn(input);
    best = Math.min(best, clock() - t0);
  }
  return best;
}

/** How `fn`'s time grew from `n` to `4n` characters. */
interface Growth {
  ratio: number;
  small_ms: number;
  large_ms: number;
}

/**
 * The growth of `fn`'s time from `n` to `4n` characters of `shape`, or undefined when the larger is
 * under the floor (too fast to time). Interleaved rounds, so that a burst of other work lands on both
 * sizes; the smaller time counts as at least a quarter of the floor.
 */
function growth(fn: Site, shape: Shape, n: number, floorMs: number, clock: Clock = cpuMs): Growth | undefined {
  const small = make(shape, n);
  const large = make(shape, 4 * n);
  fn(small); // warm up (compile, caches)
  let a = Infinity;
  let b = Infinity;
  for (let round = 0; round < 3; round++) {
    a = Math.min(a, timeOf(fn, small, 2, clock));
    b = Math.min(b, timeOf(fn, large, 1, clock));
    if (b < floorMs) return undefined;
  }
  return { ratio: b / Math.max(a, floorMs / 4), small_ms: a, large_ms: b };
}

/** A ratio at or over this is reported as super-linear (linear is 4, quadratic 16). */
export const SUPER_LINEAR = 10;

/** The worst growth of one site. */
export interface SiteWork {
  site: string;
  /** Shape and pairs measured; `timed` of them were over the floor. */
  measured: number;
  timed: number;
  /** The worst pair, or null when none was over the floor. */
  worst: (Growth & { n: number; shape: Shape }) | null;
  super_linear: boolean;
}

/**
 * The worst growth of `fn` over `shapes` at each size pair. A pair at or over SUPER_LINEAR is
 * measured again, up to three times, and its best kept: a garbage collection landing on the larger
 * input is not growth.
 */
export function siteWork(site: string, fn: Site, shapes: readonly Shape[], at: Sizes, clock: Clock = cpuMs): SiteWork {
  let worst: SiteWork['worst'] = null;
  let measured = 0;
  let timed = 0;
  for (const shape of shapes)
    for (const n of at.sizes) {
      measured++;
      let g = growth(fn, shape, n, at.floorMs, clock);
      for (let retry = 0; g && g.ratio >= SUPER_LINEAR && retry < 3; retry++) {
        const again = growth(fn, shape, n, at.floorMs, clock);
        if (!again || again.ratio < g.ratio) g = again;
      }
      if (!g) continue;
      timed++;
      if (!worst || g.ratio > worst.ratio) worst = { ...g, n, shape };
    }
  const rounded = worst && {
    ...worst,
    ratio: round(worst.ratio, 1),
    small_ms: round(worst.small_ms, 2),
    large_ms: round(worst.large_ms, 2),
  };
  return { site, measured, timed, worst: rounded, super_linear: (worst?.ratio ?? 0) >= SUPER_LINEAR };
}

/** `count` random shapes from PREFIXES, UNITS and SUFFIXES, the same for a seed. */
export function randomShapes(count: number, seed: number): Shape[] {
  const rng = createRng(seed);
  return Array.from({ length: count }, () => ({
    prefix: rng.pick(PREFIXES),
    unit: rng.pick(UNITS),
    suffix: rng.pick(SUFFIXES),
  }));
}

/**
 * The case: every site over the known shapes and a few seeded random ones, at its pairs of
 * sizes. A row a site: its worst growth (4 is linear), and whether it reached SUPER_LINEAR.
 */
export function loaderWork(
  opts: {
    /** The known shapes (default KNOWN), and how many random ones from a seed. */
    known?: readonly Shape[];
    random?: number;
    seed?: number;
    clock?: Clock;
    loaderSizes?: Sizes;
    parserSizes?: Sizes;
  } = {},
): SiteWork[] {
  const shapes = [...(opts.known ?? KNOWN), ...randomShapes(opts.random ?? 4, opts.seed ?? 1)];
  const clock = opts.clock ?? cpuMs;
  return [
    ...Object.entries(LOADER_SITES).map(([site, fn]) =>
      siteWork(site, fn, shapes, opts.loaderSizes ?? LOADER_SIZES, clock),
    ),
    ...Object.entries(PARSER_SITES).map(([site, fn]) =>
      siteWork(site, fn, shapes, opts.parserSizes ?? PARSER_SIZES, clock),
    ),
  ];
}
