/**
 * Loader work with adversarial strings (long runs of `{{`, spaces, `{`, `(`, `,`, `"`, backslashes,
 * nested templates, conditions cut before the literal) in every place a scenario string is parsed
 * (facts, templates, class conditions, approvals keys, plan templates, unquoted facts in a [...]
 * list) and in the parsers themselves (facts, conditions, templates, unification). A
 * `\{\{\s*([^{}]*?)\s*\}\}` template pattern once took over a minute on "{{" and 6,000 spaces.
 *
 * How that work grows (CPU time for an input 4× as long: linear about 4, quadratic 16, cubic 64) is
 * a timing, so it is measured by `npm run bench` (its loader-work rows,
 * harness/features/bench/loader-work.ts), never asserted here. What is tested here: every site
 * answers every known shape and random shapes at the bench's sizes (a load returns a value, a parser
 * returns; cubic work at these sizes would not finish), and the bench's arithmetic, on a clock the
 * test drives: linear work reads about 4, quadratic 16 and is flagged, a pair spoilt once by other
 * work is measured again, and a site too fast to time is said to be.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  KNOWN,
  LOADER_SITES,
  loaderWork,
  make,
  PARSER_SITES,
  PARSER_SIZES,
  PREFIXES,
  randomShapes,
  siteWork,
  SUFFIXES,
  SUPER_LINEAR,
  UNITS,
  type Shape,
  type Site,
} from '../../harness/features/bench/loader-work.ts';

/**
 * The sizes checked: a load costs milliseconds whatever the text, so loads at 4 KB (cubic work there
 * would take hours), the parsers at the bench's largest input, 64 KB.
 */
const LOADER_CHECK = [64, 4096];
const PARSER_CHECK = [64, 4 * Math.max(...PARSER_SIZES.sizes)];

describe('every place a scenario string is parsed answers adversarial strings', () => {
  it.each(Object.keys(LOADER_SITES))('%s: every known bad shape, loaded end to end', (site) => {
    const fn = LOADER_SITES[site] as Site;
    for (const shape of KNOWN)
      for (const n of LOADER_CHECK) expect(fn(make(shape, n)), `${n} of ${JSON.stringify(shape)}`).toHaveProperty('ok');
  });

  it.each(Object.keys(PARSER_SITES))('%s: every known bad shape', (site) => {
    const fn = PARSER_SITES[site] as Site;
    for (const shape of KNOWN) for (const n of PARSER_CHECK) fn(make(shape, n));
  });

  it('random shapes, at random sites (property)', () => {
    const sites = { ...LOADER_SITES, ...PARSER_SITES };
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(sites)),
        fc.record({ prefix: fc.constantFrom(...PREFIXES), unit: fc.constantFrom(...UNITS), suffix: fc.constantFrom(...SUFFIXES) }),
        (site, shape) => {
          const r = (sites[site] as Site)(make(shape, 4096));
          if (site in LOADER_SITES) expect(r).toHaveProperty('ok');
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

describe("the bench's loader-work measure, on a clock the test drives", () => {
  /** A clock that moves only when a site says it worked: `cost(length)` units a call. */
  function driven() {
    let t = 0;
    return {
      clock: () => t,
      site:
        (cost: (length: number) => number): Site =>
        (s) => {
          t += cost(s.length);
        },
    };
  }
  const SHAPE: Shape = { prefix: '{{', unit: ' ', suffix: '' };
  const at = { sizes: [1000, 4000], floorMs: 4 };

  it('reads linear work as about 4 and quadratic work as 16, flagged with its shape and size', () => {
    const d = driven();
    const linear = siteWork('linear', d.site((n) => n), [SHAPE], at, d.clock);
    expect(linear).toMatchObject({ site: 'linear', measured: 2, timed: 2, super_linear: false });
    expect(linear.worst?.ratio).toBeGreaterThan(3.9);
    expect(linear.worst?.ratio).toBeLessThanOrEqual(4);

    const commas: Shape = { prefix: '', unit: ',', suffix: '' };
    const quadratic = siteWork('quadratic', d.site((n) => n * n), [SHAPE, commas], at, d.clock);
    expect(quadratic.super_linear).toBe(true);
    // SHAPE's prefix makes its growth a little less than commas' exact 16; the first pair of those is kept.
    expect(quadratic.worst).toEqual({ ratio: 16, n: 1000, shape: commas, small_ms: 1000 ** 2, large_ms: 4000 ** 2 });
  });

  it('measures a pair again when other work spoilt its larger input, and keeps the better measure', () => {
    const d = driven();
    let spoilt = 3; // the three timed calls of the larger input in the first measure
    const site = d.site((n) => (n > 2000 && spoilt-- > 0 ? 100 * n : n));
    const r = siteWork('spoilt once', site, [SHAPE], { sizes: [1000], floorMs: 4 }, d.clock);
    expect(spoilt).toBeLessThan(0); // the spoilt measure was taken, then another
    expect(r.super_linear).toBe(false);
    expect(r.worst?.ratio).toBeLessThanOrEqual(4);
  });

  it('says when a site was too fast to time at every size, rather than a ratio', () => {
    const d = driven();
    expect(siteWork('fast', d.site(() => 1), KNOWN, at, d.clock)).toEqual({
      site: 'fast',
      measured: 2 * KNOWN.length,
      timed: 0,
      worst: null,
      super_linear: false,
    });
    expect(SUPER_LINEAR).toBeLessThan(16); // quadratic growth is always over the line
  });

  it('measures every loader site and every parser over the known and random shapes at each size', () => {
    // A clock that never moves: every pair is under the floor after one round (the fewest loads).
    const rows = loaderWork({
      known: KNOWN.slice(0, 1),
      random: 1,
      clock: () => 0,
      loaderSizes: { sizes: [16], floorMs: 4 },
      parserSizes: { sizes: [16, 32], floorMs: 1 },
    });
    expect(rows.map((r) => r.site)).toEqual([...Object.keys(LOADER_SITES), ...Object.keys(PARSER_SITES)]);
    for (const r of rows) {
      const sizes = r.site in LOADER_SITES ? 1 : 2;
      expect(r, r.site).toEqual({ site: r.site, measured: 2 * sizes, timed: 0, worst: null, super_linear: false });
    }
  });

  it('draws the same random shapes for a seed, from the lists of prefixes, units and suffixes', () => {
    const shapes = randomShapes(50, 7);
    expect(randomShapes(50, 7)).toEqual(shapes);
    expect(randomShapes(50, 8)).not.toEqual(shapes);
    for (const s of shapes) {
      expect(PREFIXES).toContain(s.prefix);
      expect(UNITS).toContain(s.unit);
      expect(SUFFIXES).toContain(s.suffix);
    }
  });
});
