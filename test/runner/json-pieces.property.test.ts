/**
 * results.json is written in pieces (util/json.ts prettyJsonPieces), so a large evaluation's file is
 * never one string. Joined, the pieces must be exactly `JSON.stringify(value, null, 2)`: key order,
 * what JSON leaves out or writes as null, toJSON (called with its key), -0, escapes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { itProp } from '../helpers/prop.ts';
import { prettyJsonPieces } from '../../harness/util/json.ts';
import { jsonSpecials } from '../helpers/json-specials.ts';

const joined = (v: unknown, pieceChars?: number) => [...prettyJsonPieces(v, pieceChars)].join('');
const json = (v: unknown) => JSON.stringify(v, null, 2) as string | undefined;

// What JSON treats specially, and a toJSON that answers with the key it was called with.
const odd = fc.constantFrom<unknown>(
  ...jsonSpecials(),
  { toJSON: (key: string) => `key:${key}` },
  { toJSON: () => undefined },
  { toJSON: () => ({ nested: [1, { toJSON: (key: string) => key }] }) },
  Object.create(null) as object,
);
const leaf = fc.oneof(fc.jsonValue({ maxDepth: 1 }), odd);
const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', '0', '10', 'toString', 'a\nb', '"'));
// Long containers inside short ones: with small pieces nearly every container is written entry by entry, with the default ones whole.
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.array(leaf, { minLength: 60, maxLength: 90 }),
    fc.dictionary(key, tie('v'), { maxKeys: 4 }),
    fc.dictionary(key, leaf, { minKeys: 60, maxKeys: 90 }),
  ),
})).v;

describe('prettyJsonPieces', () => {
  itProp('joined, is what JSON.stringify(v, null, 2) writes', [value, fc.integer({ min: 1, max: 300 })], (v, n) => {
    const want = json(v);
    expect(joined(v, n)).toBe(want ?? '');
    expect(joined(v)).toBe(want ?? '');
  });

  it('writes a large container entry by entry, in pieces of about the size asked for', () => {
    const runs = Array.from({ length: 1000 }, (_, i) => ({ i, name: `run-${i}`, skip: undefined, f: [{ m: 'x' }] }));
    const results = { a: 1, config: { ids: runs.map((r) => r.name) }, runs, summary: [{ per: runs.slice(0, 100) }] };
    const pieces = [...prettyJsonPieces(results, 4096)];
    expect(pieces.join('')).toBe(json(results));
    expect(pieces.length).toBeGreaterThan(20);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(4096 + 200);
  });

  it('throws on a cycle, as JSON.stringify does', () => {
    const cycle: Record<string, unknown> = { many: Array.from({ length: 100 }, (_, i) => i) };
    cycle.self = cycle;
    expect(() => joined(cycle)).toThrow(TypeError);
  });
});
