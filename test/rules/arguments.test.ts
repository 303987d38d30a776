/**
 * The one argument rule (harness/domain/rules/arguments.ts): a call's arguments against the
 * tool's declared JSON Schema, with ajv, no coercion. Each expectation is written by hand
 * from the schema.
 */
import { describe, expect, it } from 'vitest';
import {
  checkArguments,
  checkCallArguments,
  fitsParameter,
  schemaFaults,
} from '../../harness/domain/rules/arguments.ts';

const email = { type: 'object', properties: { to: { type: 'string', description: 'Recipient.' } }, required: ['to'] };

const order = {
  type: 'object',
  properties: {
    warehouse: { type: 'string', enum: ['ams-1', 'fra-1'] },
    order_id: { type: 'string', pattern: '^ord_[0-9]+$' },
    amount: { type: 'number', minimum: 0 },
    address: {
      type: 'object',
      properties: { street: { type: 'string' }, zip: { type: 'string', pattern: '^[0-9]{4}$' } },
      required: ['zip'],
      additionalProperties: false,
    },
    lines: {
      type: 'array',
      items: {
        type: 'object',
        properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
        required: ['sku'],
      },
      minItems: 1,
    },
  },
  required: ['warehouse', 'order_id'],
};

describe('checkArguments', () => {
  it('rejects to: 42 for a string parameter, naming the parameter', () => {
    expect(checkArguments(email, { to: 42 })).toEqual({
      ok: false,
      violations: [{ path: ['to'], keyword: 'type', message: 'must be string' }],
      text: 'to: must be string',
    });
  });

  it('accepts what fits, extra keys included when additionalProperties is not declared', () => {
    expect(checkArguments(email, { to: 'bob@acme.example', cc: 'x' })).toEqual({ ok: true });
    expect(checkArguments(order, { warehouse: 'ams-1', order_id: 'ord_12', lines: [{ sku: 'k', qty: 2 }] })).toEqual({
      ok: true,
    });
  });

  it('does not coerce: "42" is not a number, 1 is not a string', () => {
    expect(checkArguments(order, { warehouse: 'ams-1', order_id: 'ord_1', amount: '42' })).toMatchObject({
      ok: false,
      text: 'amount: must be number',
    });
    expect(checkArguments(email, { to: 1 })).toMatchObject({ ok: false, text: 'to: must be string' });
  });

  it('names an enum violation with the allowed values', () => {
    expect(checkArguments(order, { warehouse: 'ams-2', order_id: 'ord_1' })).toMatchObject({
      ok: false,
      text: 'warehouse: must be one of "ams-1", "fra-1"',
    });
  });

  it('names a pattern violation with the pattern', () => {
    expect(checkArguments(order, { warehouse: 'ams-1', order_id: 'ORD-1' })).toMatchObject({
      ok: false,
      text: 'order_id: must match the pattern "^ord_[0-9]+$"',
    });
  });

  it('checks nested objects: a missing required key, a pattern, and additionalProperties where declared', () => {
    const r = checkArguments(order, {
      warehouse: 'ams-1',
      order_id: 'ord_1',
      address: { street: 'Damrak 1', zip: '10AB', floor: 2 },
    });
    expect(r).toMatchObject({
      ok: false,
      text: 'address.floor: is not a declared property (additionalProperties: false); address.zip: must match the pattern "^[0-9]{4}$"',
    });
    expect(checkArguments(order, { warehouse: 'ams-1', order_id: 'ord_1', address: {} })).toMatchObject({
      ok: false,
      violations: [{ path: ['address', 'zip'], keyword: 'required', message: 'is required' }],
    });
  });

  it('checks arrays: their own bounds and each item, with the item index in the path', () => {
    expect(checkArguments(order, { warehouse: 'ams-1', order_id: 'ord_1', lines: [] })).toMatchObject({
      ok: false,
      text: 'lines: must NOT have fewer than 1 items',
    });
    const r = checkArguments(order, {
      warehouse: 'ams-1',
      order_id: 'ord_1',
      lines: [{ sku: 'a', qty: 0 }, { qty: 1.5 }],
    });
    expect(r).toMatchObject({
      ok: false,
      text: 'lines[0].qty: must be >= 1; lines[1].sku: is required; lines[1].qty: must be integer',
    });
  });

  it('lists every violation at once: missing required parameters and wrong types', () => {
    expect(checkArguments(order, { amount: -1 })).toMatchObject({
      ok: false,
      text: 'warehouse: is required; order_id: is required; amount: must be >= 0',
    });
  });

  it('refuses arguments that are not an object', () => {
    expect(checkArguments(email, [])).toMatchObject({ ok: false, text: 'arguments: must be object' });
    expect(checkArguments(email, 'to=bob')).toMatchObject({ ok: false, text: 'arguments: must be object' });
  });

  it('never changes the arguments (no defaults filled in, nothing removed)', () => {
    const args = { warehouse: 'ams-1', order_id: 'ord_1', extra: 1 };
    const schema = { ...order, properties: { ...order.properties, note: { type: 'string', default: 'n/a' } } };
    checkArguments(schema, args);
    expect(args).toEqual({ warehouse: 'ams-1', order_id: 'ord_1', extra: 1 });
  });
});

describe('schemas', () => {
  it('accepts OpenAI-style function schemas: descriptions, examples, titles, formats, a $schema and an $id', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'send',
      type: 'object',
      title: 'Send',
      properties: { to: { type: 'string', format: 'email', examples: ['a@b.c'], 'x-vendor': true } },
      required: ['to'],
    };
    expect(schemaFaults(schema)).toEqual([]);
    // Formats are not checked; a second schema with the same $id compiles too.
    expect(checkArguments(schema, { to: 'not an address' })).toEqual({ ok: true });
    expect(checkArguments({ ...schema, required: [] }, {})).toEqual({ ok: true });
  });

  it('says where a schema is wrong: a misspelt type (with the allowed values), a bad pattern', () => {
    expect(schemaFaults({ type: 'object', properties: { to: { type: 'strng' } } })).toEqual([
      {
        path: ['properties', 'to', 'type'],
        message: 'must be one of array, boolean, integer, null, number, object, string',
        allowed: ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'],
      },
    ]);
    expect(schemaFaults({ type: 'object', properties: { zip: { type: 'string', pattern: '[0-9' } } })).toMatchObject([
      { path: ['properties', 'zip', 'pattern'], message: expect.stringContaining('is not a valid regular expression') },
    ]);
  });

  it('checks a catastrophic pattern in linear time: `^(a+)+$` against a long argument answers at once', () => {
    // A backtracking engine takes 2^n steps here (29 characters: over a minute); RE2 never backtracks.
    // No duration is asserted: the old engine would hang this test until its timeout.
    const schema = { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } };
    expect(checkArguments(schema, { name: `${'a'.repeat(40)}!` })).toMatchObject({
      ok: false,
      violations: [{ path: ['name'], keyword: 'pattern' }],
    });
    expect(checkArguments(schema, { name: 'a'.repeat(40) })).toEqual({ ok: true });
  });

  it('refuses a pattern the linear-time engine cannot run (lookahead, backreferences), in pattern and patternProperties', () => {
    expect(schemaFaults({ type: 'object', properties: { to: { type: 'string', pattern: '^(?!x)' } } })).toMatchObject([
      {
        path: ['properties', 'to', 'pattern'],
        message: 'the pattern "^(?!x)" cannot be used: lookahead cannot run in linear time',
        hint: expect.stringContaining('no backreferences or lookaround'),
      },
    ]);
    expect(schemaFaults({ type: 'object', patternProperties: { '^(a)\\1$': { type: 'string' } } })).toMatchObject([
      {
        path: ['patternProperties', '^(a)\\1$'],
        message: expect.stringContaining('a backreference cannot run in linear time'),
      },
    ]);
  });

  it('throws, rather than wave a call through, on a schema that does not compile (the loader refuses those first)', () => {
    expect(() => checkArguments({ type: 'object', properties: { to: { type: 'strng' } } }, { to: 'x' })).toThrow(
      /does not compile/,
    );
  });
});

describe('checkCallArguments and fitsParameter', () => {
  const tools = new Map([['send_email', { name: 'send_email', parameters: email }]]);

  it('gives the reason a rejected call is recorded with', () => {
    expect(checkCallArguments(tools, 'send_email', { to: 42 })).toEqual({
      ok: false,
      reason: 'invalid arguments for send_email: to: must be string',
      violations: [{ path: ['to'], keyword: 'type', message: 'must be string' }],
    });
    expect(checkCallArguments(tools, 'send_emial', { to: 'x' })).toEqual({
      ok: false,
      reason: 'unknown tool "send_emial" (did you mean "send_email"?); the tools are: send_email',
      violations: [],
    });
    expect(checkCallArguments(tools, 'send_email', { to: 'x' })).toEqual({ ok: true });
  });

  it('judges one parameter on its own, other parameters aside', () => {
    expect(fitsParameter(order, 'warehouse', 'fra-1')).toBe(true);
    expect(fitsParameter(order, 'warehouse', 'ams-2')).toBe(false);
    expect(fitsParameter(order, 'address', { zip: '1012' })).toBe(true);
    expect(fitsParameter(order, 'address', { zip: '1012', floor: 1 })).toBe(false);
  });
});
