/**
 * Loader work per KB: adversarial strings (long runs of `{{`, spaces, `{`, `(`, `,`, `"`,
 * backslashes, nested templates, conditions cut before the literal) in every place a
 * scenario string is parsed (facts, templates, class conditions, approvals keys, plan
 * templates, unquoted facts in a [...] list) and in the parsers themselves (facts, conditions, templates, unification) must
 * take linear time. A `\{\{\s*([^{}]*?)\s*\}\}` template pattern once took over a minute on
 * "{{" and 6,000 spaces.
 *
 * The measure is relative, not a wall-clock budget: the CPU time this process spends (not the
 * time that passes: other work on the machine does not count) for an input 4x as long, against
 * that for the shorter one (best of a few tries, interleaved). Linear work gives about 4;
 * quadratic 16, cubic 64: the property fails at 10 or more, after three fresh measurements. Inputs too fast to time (under a
 * floor) pass. Two sizes of pairs: small ones catch cubic work before it takes long, large ones
 * catch quadratic work that the loader's constant cost would hide in a small input.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFact } from '../../harness/core/facts/fact.ts';
import { parseCondition } from '../../harness/domain/rules/classes.ts';
import { loadPlanText, loadScenarioText } from '../../harness/engine/loader/load.ts';
import { matchValue } from '../../harness/domain/planner-kit/unify.ts';
import { renderString, templateMatches, wholeTemplatePath } from '../../harness/core/templates/render.ts';
import { REPO_ROOT } from '../../harness/cli/common.ts';

const TINY = readFileSync(join(REPO_ROOT, 'test/fixtures/loader/tiny.yaml'), 'utf8');
const tiny = loadScenarioText(TINY, 'tiny.yaml');
if (!tiny.ok) throw new Error('the tiny fixture does not load');
const scenario = tiny.value.scenario;

/** An adversarial string of about `n` characters: a prefix, a run of one unit, a suffix. */
interface Shape {
  prefix: string;
  unit: string;
  suffix: string;
}
const make = (s: Shape, n: number) => s.prefix + s.unit.repeat(Math.max(1, Math.floor(n / s.unit.length))) + s.suffix;

const PREFIXES = ['', '{{', '{{ ', 'x(a=', 'done(to={{args.', 'deployment.a ==', 'deployment', 'inv-{{args.email}}'];
const UNITS = ['{{', ' ', '{', '(', ',', '"', '\\', '{{args.email}}', '{{ {{', '}}', '.a', 'a=', '\t', ' \n', '-', '*'];
const SUFFIXES = ['', '}}', ')', 'x\ny', '!', '"', '}}}'];

/** The shapes known to have cost super-linear work somewhere, and a few more. */
const KNOWN: Shape[] = [
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

type Site = (s: string) => unknown;
const q = (s: string) => JSON.stringify(s); // a YAML double-quoted scalar

/** Every place a scenario string is parsed, loaded end to end. */
const LOADER_SITES: Record<string, Site> = {
  'world fact': (s) => loadScenarioText(TINY.replace('customer_exists(customer=acme)', q(s)), 'w.yaml'),
  precondition: (s) => loadScenarioText(TINY.replace('"recipient_verified(email={{args.to}})"', q(s)), 'w.yaml'),
  goal: (s) => loadScenarioText(TINY.replace('"email_sent(to={{inputs.email}})"', q(s)), 'w.yaml'),
  'establish effect': (s) => loadScenarioText(TINY.replace('"recipient_verified(email={{args.email}})"', q(s)), 'w.yaml'),
  'row template': (s) => loadScenarioText(TINY.replace('row: { to: "{{args.to}}" }', `row: { to: ${q(s)} }`), 'w.yaml'),
  'returns template': (s) => loadScenarioText(TINY.replace('message_id: "{{id}}"', `message_id: ${q(s)}`), 'w.yaml'),
  'class condition': (s) =>
    loadScenarioText(TINY.replace('reversibility: irreversible', `reversibility: [{ when: ${q(s)}, class: reversible }, { class: irreversible }]`), 'w.yaml'),
  'approvals key': (s) => loadScenarioText(TINY.replace('approvals: { send_email: approve }', `approvals: { ${q(s)}: approve }`), 'w.yaml'),
  // Unquoted in a [...] list: YAML's own errors, and the split-fact check that writes the quoted line.
  'flow fact list': (s) => loadScenarioText(TINY.replace('["recipient_verified(email={{args.to}})"]', `[${s}]`), 'w.yaml'),
  'task text': (s) => loadScenarioText(TINY.replace('task: Email bob.', `task: ${q(s)}`), 'w.yaml'),
  'plan template': (s) => loadPlanText(`- verify_recipient: { email: ${q(s)} }\n- finish\n`, 'p.yaml', scenario),
};

/** The parsers, called directly (no constant cost of a load to hide their work in). */
const PARSER_SITES: Record<string, Site> = {
  parseFact: (s) => parseFact(s),
  parseCondition: (s) => parseCondition(s),
  templateMatches: (s) => templateMatches(s),
  wholeTemplatePath: (s) => wholeTemplatePath(s),
  renderString: (s) => renderString(s, { args: { a: 'x' }, inputs: {} }),
  'matchValue (template)': (s) => matchValue(s, `${'a'.repeat(s.length)}!`, {}),
  'matchValue (value)': (s) => matchValue('{{args.a}}a{{args.b}}{{args.a}}a{{result.x}}!', s, {}),
  'matchValue (both)': (s) => matchValue(s, s, {}),
};

/** CPU time of this process so far, in ms (user and system): what a computation costs, however busy the machine. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Best CPU time of `fn(input)` over a few tries. */
function timeOf(fn: Site, input: string, tries: number): number {
  let best = Infinity;
  for (let i = 0; i < tries; i++) {
    const t0 = cpuMs();
    fn(input);
    best = Math.min(best, cpuMs() - t0);
  }
  return best;
}

/** The growth of `fn`'s time from `n` to `4n` characters, or undefined when both are under the floor. */
function growth(fn: Site, shape: Shape, n: number, floorMs: number): { ratio: number; small: number; large: number } | undefined {
  const small = make(shape, n);
  const large = make(shape, 4 * n);
  fn(small); // warm up (compile, caches)
  let a = Infinity;
  let b = Infinity;
  // Interleaved, so that a burst of other work on the machine lands on both sizes.
  for (let round = 0; round < 3; round++) {
    a = Math.min(a, timeOf(fn, small, 2));
    b = Math.min(b, timeOf(fn, large, 1));
    if (b < floorMs) return undefined;
  }
  return { ratio: b / Math.max(a, floorMs / 4), small: a, large: b };
}

/**
 * Linear within the ratio at both pairs of sizes (the small pair first: cubic work fails it fast).
 * 4× the input may cost up to 10× (linear is 4×, quadratic 16×, cubic 64×); a pair over it is measured
 * again, up to three times, since a garbage collection landing on the larger input is not growth.
 */
function expectLinear(name: string, fn: Site, shape: Shape, sizes: readonly number[], floorMs: number): void {
  for (const n of sizes) {
    let g = growth(fn, shape, n, floorMs);
    for (let retry = 0; g && g.ratio >= 10 && retry < 3; retry++) g = growth(fn, shape, n, floorMs);
    if (g && g.ratio >= 10) {
      expect.fail(`${name}: ${n} → ${4 * n} characters of ${JSON.stringify(shape)} took ${g.small.toFixed(2)} → ${g.large.toFixed(2)} ms (x${g.ratio.toFixed(1)}; linear is about x4)`);
    }
  }
}

describe('loader work grows linearly with adversarial strings', () => {
  it.each(Object.keys(LOADER_SITES))('%s: every known bad shape', (site) => {
    const fn = LOADER_SITES[site] as Site;
    for (const shape of KNOWN) {
      // A load returns a value, whatever the text.
      expect(fn(make(shape, 64))).toHaveProperty('ok');
      expectLinear(site, fn, shape, [1024, 16384], 4);
    }
  });

  it.each(Object.keys(PARSER_SITES))('%s: every known bad shape', (site) => {
    const fn = PARSER_SITES[site] as Site;
    for (const shape of KNOWN) expectLinear(site, fn, shape, [2048, 16384], 1);
  });

  it('random shapes, at random sites (property)', () => {
    const sites = { ...LOADER_SITES, ...PARSER_SITES };
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(sites)),
        fc.record({ prefix: fc.constantFrom(...PREFIXES), unit: fc.constantFrom(...UNITS), suffix: fc.constantFrom(...SUFFIXES) }),
        (site, shape) => {
          const loader = site in LOADER_SITES;
          expectLinear(site, sites[site] as Site, shape, loader ? [1024, 8192] : [2048, 8192], loader ? 4 : 1);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('the issue\'s 6.8 KB scenario ("{{" and 6,000 spaces in a template) loads at once', () => {
    const r = LOADER_SITES['row template']?.(`{{${' '.repeat(6000)}`) as { ok: boolean };
    expect(r.ok).toBe(false); // an unclosed template: a problem, not a hang
  });
});
