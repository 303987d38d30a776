/**
 * Before a previous results.json is kept as `.prev`, it is checked to be whole as it is read, not
 * parsed (util/json-check.ts). The check must answer as JSON.parse does on the file's text, for any
 * bytes (damaged, cut short, not UTF-8), and read the top-level members readResults looks at.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { itProp } from '../helpers/prop.ts';
import { checkJsonFile, JsonCheck } from '../../harness/util/json-check.ts';
import { tempDir } from '../helpers/cli.ts';

const parses = (bytes: Uint8Array): boolean => {
  try {
    JSON.parse(Buffer.from(bytes).toString('utf8'));
    return true;
  } catch {
    return false;
  }
};

/** The check over `bytes` fed in pieces cut at `cuts`. */
function check(bytes: Uint8Array, cuts: number[] = []): JsonCheck {
  const c = new JsonCheck();
  let from = 0;
  for (const at of [...cuts.map((x) => x % (bytes.length + 1)).sort((a, b) => a - b), bytes.length]) {
    c.write(bytes.subarray(from, Math.max(from, at)));
    from = Math.max(from, at);
  }
  return c;
}

const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
// JSON texts, compact or pretty, with the odd spacing, escapes and numbers JSON allows.
const text = fc
  .tuple(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(0, 2, '\t', ' \r\n'))
  .map(([v, space]) => JSON.stringify(v, null, space));
// Bytes that matter to the grammar, and some that do not.
const byte = fc.oneof(
  fc.constantFrom(...'{}[]":,\\/-+.0123456789eEtrufalsn \t\r\nux'.split('').map((c) => c.charCodeAt(0))),
  fc.constantFrom(0x00, 0x1f, 0x7f, 0x80, 0xbf, 0xc3, 0xe2, 0xef, 0xff),
  fc.integer({ min: 0, max: 255 }),
);
// A text damaged: cut short, a byte changed, inserted or removed.
const damaged = fc
  .tuple(text, fc.nat(), byte, fc.constantFrom('cut', 'set', 'insert', 'remove'))
  .map(([t, at, b, how]) => {
    const bytes = [...utf8(t)];
    const i = bytes.length === 0 ? 0 : at % bytes.length;
    if (how === 'cut') bytes.length = i;
    else if (how === 'set' && bytes.length > 0) bytes[i] = b;
    else if (how === 'insert') bytes.splice(i, 0, b);
    else bytes.splice(i, 1);
    return new Uint8Array(bytes);
  });
const anyBytes = fc.uint8Array({ maxLength: 40 });
// Tokens and near-tokens, strung together (valid texts now and then, and every edge of the grammar)
// or put into a valid text next to one of its brackets, colons or commas.
const token = fc.constantFrom(
  ...['{', '}', '[', ']', ':', ',', ' ', '\n', '"a"', '"\\u00e9"', '"\\x"', '"\\u12"', '"é"', '"\t"'],
  ...['0', '01', '-', '-0', '1.', '1.5', '.5', '1e', '1e+2', '2E-0', '00', 'true', 'nul', 'null', 'falsey'],
);
const soup = fc.array(token, { maxLength: 12 }).map((parts) => utf8(parts.join('')));
const spliced = fc.tuple(text, fc.nat(), fc.boolean(), token).map(([t, at, after, tok]) => {
  const marks = [...t.matchAll(/[{}[\]:,]/g)].map((m) => (m.index as number) + (after ? 1 : 0));
  const i = marks.length ? (marks[at % marks.length] as number) : 0;
  return utf8(t.slice(0, i) + tok + t.slice(i));
});

describe('the JSON check', () => {
  itProp(
    'answers as JSON.parse does, however the bytes come in pieces',
    [fc.oneof(text.map(utf8), damaged, anyBytes, soup, spliced), fc.array(fc.nat(), { maxLength: 4 })],
    (bytes, cuts) => {
      expect(check(bytes, cuts).end()).toBe(parses(bytes));
    },
    {
      numRuns: 1000,
    },
  );

  itProp(
    "reads the top-level object's members: what each value begins with, a number's text",
    [
      fc.dictionary(
        fc.oneof(fc.string(), fc.constantFrom('runs', 'config', 'schema_version', 'a\u0001b', 'q"uote', 'back\\slash')),
        fc.jsonValue({ maxDepth: 2 }),
      ),
    ],
    (o) => {
      const c = check(utf8(JSON.stringify(o, null, 1)));
      expect(c.end()).toBe(true);
      expect([...c.top.keys()].sort()).toEqual(Object.keys(o).sort());
      for (const [k, v] of Object.entries(o)) {
        const got = c.top.get(k) as string;
        if (typeof v === 'number')
          expect(Number(got)).toBe(JSON.parse(JSON.stringify(v)) as number); // -0 is written 0
        else expect(got).toBe((JSON.stringify(v) as string)[0]);
      }
    },
  );

  it('answers as JSON.parse does on the edges of the grammar', () => {
    const cases = [
      ...['{"a":1,}', '[1,]', '[,1]', '{,}', '{"a"}', '{"a":}', '{"a":1 "b":2}', '{"a":1}}', '[[]', '[]]', '{}x'],
      ...['01', '-01', '-', '1.', '.5', '1e', '1e+', '0x1', 'NaN', '+1', '-0', '0.0e-0', '1E+10', '[1.5e3,-0.0]'],
      ...['tru', 'true', 'nul', 'null', 'falsee', '"\\x"', '"\\u12"', '"\\u12AF"', '"\\/"', '"\t"', '"a\u2028"'],
      ...['', ' ', '\ufeff{}', ' {} ', '1 2', '"unterminated', '{"a":[1,{"b":null}]}'],
    ];
    for (const c of cases) expect(check(utf8(c)).end(), c).toBe(parses(utf8(c)));
  });

  it('keeps the last of a repeated key, decodes escaped keys, and reads a file', () => {
    const c = check(utf8('{"runs": 1, "r\\u0075ns": [], "schema_version": 1.0e0, "config": {"runs": 2}}'));
    expect(c.end()).toBe(true);
    expect(c.top.get('runs')).toBe('[');
    expect(Number(c.top.get('schema_version'))).toBe(1);
    expect(c.top.get('config')).toBe('{');
    const dir = tempDir('oneway-json-check-');
    writeFileSync(join(dir, 'a.json'), `${JSON.stringify({ x: 'y'.repeat(200_000), n: -0.5 }, null, 2)}\n`);
    const f = checkJsonFile(join(dir, 'a.json'));
    expect(f?.end()).toBe(true);
    expect(f?.top.get('n')).toBe('-0.5');
    expect(checkJsonFile(join(dir, 'missing.json'))).toBeUndefined();
  });
});
