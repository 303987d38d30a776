/** The JSON-schema types a tool parameter declares, and text read as one of them. */

export function declaredTypes(parameters: { properties: Record<string, Record<string, unknown>> }, param: string): string[] {
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
  if ((types.includes('number') || types.includes('integer')) && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return undefined;
}
