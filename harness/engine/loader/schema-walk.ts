/**
 * Just enough zod 4 introspection for good messages: the schema(s) at a field
 * path, the keys an object allows, a schema's description, and a short text of
 * what a schema accepts. Reads `schema._zod.def`, zod 4's documented surface for
 * library authors.
 */
import { z } from 'zod';
import { Approval, PlanItem, Reversibility } from '../../core/scenario.ts';

type Schema = z.core.$ZodType;

interface Def {
  type: string;
  innerType?: Schema;
  in?: Schema;
  getter?: () => Schema;
  shape?: Record<string, Schema>;
  element?: Schema;
  keyType?: Schema;
  valueType?: Schema;
  options?: Schema[];
  entries?: Record<string, string | number>;
  values?: unknown[];
}

function defOf(s: Schema): Def {
  return (s as unknown as { _zod: { def: Def } })._zod.def;
}

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** Strips optional/default/nullable/pipe wrappers. */
function unwrap(s: Schema): Schema {
  let cur = s;
  for (let i = 0; i < 16; i++) {
    const d = defOf(cur);
    if (WRAPPERS.has(d.type) && d.innerType) cur = d.innerType;
    else if (d.type === 'pipe' && d.in) cur = d.in;
    else if (d.type === 'lazy' && d.getter) cur = d.getter();
    else break;
  }
  return cur;
}

/** The first description found on the schema or its wrappers. */
function describeOf(s: Schema): string | undefined {
  let cur: Schema | undefined = s;
  for (let i = 0; cur && i < 16; i++) {
    const desc = z.globalRegistry.get(cur)?.description;
    if (desc) return desc;
    const d = defOf(cur);
    cur = WRAPPERS.has(d.type) ? d.innerType : d.type === 'pipe' ? d.in : undefined;
  }
  return undefined;
}

/** Union members, flattened, each unwrapped. */
function alternatives(s: Schema): Schema[] {
  const u = unwrap(s);
  const d = defOf(u);
  if (d.type === 'union' && d.options) return d.options.flatMap(alternatives);
  return [u];
}

function children(s: Schema, seg: string | number): Schema[] {
  const out: Schema[] = [];
  for (const alt of alternatives(s)) {
    const d = defOf(alt);
    if (d.type === 'object' && typeof seg === 'string' && d.shape && Object.hasOwn(d.shape, seg)) {
      const child = d.shape[seg];
      if (child) out.push(child);
    } else if (d.type === 'array' && typeof seg === 'number' && d.element) out.push(d.element);
    else if (d.type === 'record' && typeof seg === 'string' && d.valueType) out.push(d.valueType);
  }
  return out;
}

/** Every schema that may describe the value at `path` (more than one below unions). */
export function schemasAt(root: Schema, path: readonly (string | number)[]): Schema[] {
  let cur: Schema[] = [root];
  for (const seg of path) {
    cur = cur.flatMap((s) => children(s, seg));
    if (cur.length === 0) break;
  }
  return cur;
}

/** The keys an object at `path` allows (the union of all object alternatives there). */
export function allowedKeys(root: Schema, path: readonly (string | number)[]): string[] {
  const keys = new Set<string>();
  for (const s of schemasAt(root, path)) {
    for (const alt of alternatives(s)) {
      const d = defOf(alt);
      if (d.type === 'object' && d.shape) for (const k of Object.keys(d.shape)) keys.add(k);
    }
  }
  return [...keys];
}

/** The description at `path`, if the schema there has one. */
export function descriptionAt(root: Schema, path: readonly (string | number)[]): string | undefined {
  for (const s of schemasAt(root, path)) {
    const d = describeOf(s);
    if (d) return d;
  }
  return undefined;
}

/** The description of the keys of the mapping at `path` (a record whose key schema has one). */
export function keyDescriptionAt(root: Schema, path: readonly (string | number)[]): string | undefined {
  for (const s of schemasAt(root, path)) {
    for (const alt of alternatives(s)) {
      const d = defOf(alt);
      const desc = d.type === 'record' && d.keyType ? describeOf(d.keyType) : undefined;
      if (desc) return desc;
    }
  }
  return undefined;
}

/** Phrases for the unions users meet most, where a generic rendering would read poorly. */
const PHRASES = new Map<Schema, string>([
  [Reversibility, 'one of reversible | compensable | irreversible, or a list of {when, class} rules'],
  [Approval, 'approve | deny | {approve_after: N}'],
  [PlanItem, '"finish", {parallel: [calls]}, or a call {tool_name: {args}}'],
]);

/** A type name as users say it: `record` is "a mapping", `int` "a number". */
export function typeNoun(type: string): string {
  switch (type) {
    case 'record':
    case 'object':
      return 'a mapping';
    case 'array':
      return 'a list';
    case 'string':
      return 'a string';
    case 'number':
    case 'int':
      return 'a number';
    case 'boolean':
      return 'true or false';
    default:
      return type;
  }
}

/**
 * A short text of what a schema accepts.
 *
 * @example
 * acceptsText(ClassName) // 'reversible | compensable | irreversible'
 */
export function acceptsText(s: Schema, depth = 0): string {
  const phrase = PHRASES.get(s) ?? PHRASES.get(unwrap(s));
  if (phrase) return phrase;
  const u = unwrap(s);
  const d = defOf(u);
  switch (d.type) {
    case 'enum':
      return Object.values(d.entries ?? {}).join(' | ');
    case 'literal':
      return (d.values ?? []).map((v) => JSON.stringify(v)).join(' | ');
    case 'object': {
      const keys = Object.keys(d.shape ?? {});
      return keys.length <= 4 ? `{${keys.join(', ')}}` : 'a mapping';
    }
    case 'array':
      return depth < 2 && d.element ? `a list of ${acceptsText(d.element, depth + 1)}` : 'a list';
    case 'union':
      return (d.options ?? []).map((o) => acceptsText(o, depth + 1)).join(', or ');
    default:
      return typeNoun(d.type);
  }
}
