/**
 * JSON with object keys sorted at every level: equal values give equal text
 * whatever their key order.
 *
 * @example
 * stableJson({ b: 2, a: 1 }) === stableJson({ a: 1, b: 2 }) // true
 */
export function stableJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'undefined';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/** Deep equality of two JSON-like values (key order ignored). */
export function sameValue(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}
