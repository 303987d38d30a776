/** The JSON-schema types a tool parameter declares, and text read as one of them. */

export function declaredTypes(
  parameters: { properties: Record<string, Record<string, unknown>> },
  param: string,
): string[] {
  const t = parameters.properties[param]?.type;
  return typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * Text (a fact value, a table cell) as a value of the first declared type it
 * can be, or undefined when it can be none.
 *
 * @example
 * textAs(['integer'], '1200') // 1200
 * textAs(['boolean'], 'yes') // undefined
 */
export function textAs(types: readonly string[], text: string): string | number | boolean | undefined {
  if (types.includes('string')) return text;
  if ((types.includes('number') || types.includes('integer')) && text.trim() !== '' && Number.isFinite(Number(text)))
    return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return undefined;
}

/** A JSON-schema node as tool parameters declare it. */
type SchemaNode = Record<string, unknown>;

const isNode = (v: unknown): v is SchemaNode => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The types a schema node declares (`type` as text or list); an untyped node with `properties` or `items` counts as an object or array. */
function schemaTypes(schema: unknown): string[] {
  if (!isNode(schema)) return [];
  const t = schema.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  if (isNode(schema.properties)) return ['object'];
  if (schema.items !== undefined) return ['array'];
  return [];
}

/** Whether a parameter is structured (an array or an object), the values facts cannot spell. */
export function isStructured(schema: unknown): boolean {
  return schemaTypes(schema).some((t) => t === 'array' || t === 'object');
}

/**
 * The smallest value that can satisfy a schema node, or undefined when none can be
 * made up (a pattern, a format the value must meet). A property of an object is first
 * looked up by name with `lookup` (inputs, results: what a caller already knows), then
 * its `default`, then made up. The caller validates the result: this builds a
 * candidate, it does not promise one.
 *
 * @example
 * minimalValue({ type: 'array', items: { type: 'string' } }) // []
 * minimalValue({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, (k) => (k === 'path' ? '/tmp/a' : undefined))
 * // { path: '/tmp/a' }
 */
export function minimalValue(schema: unknown, lookup: (name: string) => unknown = () => undefined, depth = 0): unknown {
  if (depth > 8 || !isNode(schema))
    return depth > 8 ? undefined : schema === true || schema === undefined ? null : undefined;
  if (schema.default !== undefined) return structuredClone(schema.default);
  if (schema.const !== undefined) return structuredClone(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.length > 0 ? structuredClone(schema.enum[0]) : undefined;
  for (const k of ['anyOf', 'oneOf'] as const) {
    const alts = schema[k];
    if (Array.isArray(alts))
      for (const alt of alts) {
        const v = minimalValue({ ...without(schema, k), ...(isNode(alt) ? alt : {}) }, lookup, depth + 1);
        if (v !== undefined) return v;
      }
  }
  if (Array.isArray(schema.allOf))
    return minimalValue(Object.assign({}, without(schema, 'allOf'), ...schema.allOf.filter(isNode)), lookup, depth + 1);
  const types = schemaTypes(schema);
  const type =
    ['object', 'array', 'string', 'integer', 'number', 'boolean', 'null'].find((t) => types.includes(t)) ??
    (types.length === 0 ? 'string' : undefined);
  switch (type) {
    case 'object': {
      const props = isNode(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required)
        ? schema.required.filter((r): r is string => typeof r === 'string')
        : [];
      const out: Record<string, unknown> = {};
      for (const name of required) {
        const known = lookup(name);
        const v = known !== undefined ? known : minimalValue(props[name] ?? {}, lookup, depth + 1);
        if (v === undefined) return undefined;
        out[name] = v;
      }
      return out;
    }
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      if (min === 0) return [];
      if (min > 16) return undefined;
      const items = Array.isArray(schema.items) ? schema.items : Array.from({ length: min }, () => schema.items ?? {});
      const out: unknown[] = [];
      for (let i = 0; i < min; i++) {
        const v = minimalValue(items[i] ?? schema.items ?? {}, lookup, depth + 1);
        if (v === undefined) return undefined;
        out.push(v);
      }
      return out;
    }
    case 'string': {
      if (typeof schema.pattern === 'string' || typeof schema.format === 'string') return undefined;
      const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
      return min > 256 ? undefined : 'x'.repeat(min);
    }
    case 'integer':
    case 'number': {
      const lo =
        typeof schema.minimum === 'number'
          ? schema.minimum
          : typeof schema.exclusiveMinimum === 'number'
            ? schema.exclusiveMinimum + 1
            : 0;
      const n = type === 'integer' ? Math.ceil(lo) : lo;
      return typeof schema.maximum === 'number' && n > schema.maximum ? undefined : n;
    }
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return undefined;
  }
}

function without(o: SchemaNode, key: string): SchemaNode {
  const { [key]: _drop, ...rest } = o;
  void _drop;
  return rest;
}
