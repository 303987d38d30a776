/**
 * A decision's arguments and an in-process reply cross a JSON round trip; plain data is copied
 * without the text (util/json.ts plainJsonCopy). Whatever the value, the result must be exactly what
 * `JSON.parse(JSON.stringify(value))` gives, key order, -0 and own `__proto__` keys included.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { itProp } from '../helpers/prop.ts';
import { checkDecision, MAX_ARGS_BYTES } from '../../harness/engine/runner/decision.ts';
import type { ToolParameters } from '../../harness/domain/rules/arguments.ts';
import { wire } from '../../harness/engine/sandbox/transport.ts';
import { plainJsonCopy } from '../../harness/util/json.ts';
import { jsonSpecials } from '../helpers/json-specials.ts';

const roundTrip = (v: unknown): unknown => JSON.parse(JSON.stringify(v) as string) as unknown;

/** Equal as values (-0 is not 0) and as JSON text (key order). */
function expectSame(got: unknown, want: unknown): void {
  expect(got).toStrictEqual(want);
  expect(JSON.stringify(got)).toBe(JSON.stringify(want));
}

// JSON values, and what JSON treats specially: undefined, functions, symbols, -0, NaN, Infinity, Dates, Maps, toJSON.
const odd = fc.constantFrom<unknown>(...jsonSpecials(), { toJSON: () => 'j' });
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 2 }),
    odd,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', '0', '10', 'toString')), tie('v'), { maxKeys: 4 }),
  ),
})).v;

describe('plain JSON copy', () => {
  itProp('wire gives what the JSON round trip gives', [fc.dictionary(fc.string(), value, { maxKeys: 6 })], (args) => {
    expectSame(wire(args), roundTrip(args));
  });

  itProp('plainJsonCopy is the round trip, or undefined', [value], (v) => {
    const copy = plainJsonCopy(v);
    if (copy !== undefined) expectSame(copy, roundTrip(v));
  });

  it('copies plain data, leaving out what JSON leaves out', () => {
    expectSame(plainJsonCopy({ a: [1, undefined, () => 2], b: undefined, c: -0, d: { e: 'x' } }), {
      a: [1, null, null],
      c: 0,
      d: { e: 'x' },
    });
    const withProto = JSON.parse('{"__proto__": {"x": 1}}') as object;
    expect(Object.keys(plainJsonCopy(withProto) as object)).toEqual(['__proto__']);
  });

  it('leaves to the round trip what is not plain data: toJSON, Dates, NaN, cycles', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const v of [{ d: new Date(0) }, { n: Number.NaN }, { big: 1n }, cycle, { t: { toJSON: () => 1 } }])
      expect(plainJsonCopy(v)).toBeUndefined();
  });

  it('answers undefined when the text could pass the limit, so the exact size is measured', () => {
    expect(plainJsonCopy({ s: 'x'.repeat(100) }, 50)).toBeUndefined();
    expect(plainJsonCopy({ s: 'x'.repeat(5) }, 100)).toEqual({ s: 'xxxxx' });
  });
});

describe('decision arguments', () => {
  const tools = new Map<string, ToolParameters>([['t', { name: 't', parameters: { type: 'object', properties: {} } }]]);

  it('over the size limit: refused with their size, as before', () => {
    const r = checkDecision({ type: 'call', call: { tool: 't', args: { s: 'x'.repeat(MAX_ARGS_BYTES) } } }, tools);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.message).toBe(`decision.call.args is ${MAX_ARGS_BYTES + 8} bytes; the limit is ${MAX_ARGS_BYTES}`);
  });

  it('within it, though each character might take six: kept', () => {
    const s = 'x'.repeat(MAX_ARGS_BYTES - 100);
    const r = checkDecision({ type: 'call', call: { tool: 't', args: { s } } }, tools);
    expect(r.ok).toBe(true);
  });

  it('a cycle: refused as JSON refuses it', () => {
    const args: Record<string, unknown> = {};
    args.self = args;
    const r = checkDecision({ type: 'call', call: { tool: 't', args } }, tools);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/^decision\.call\.args cannot be serialised: Converting circular structure/);
  });
});
