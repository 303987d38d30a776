/**
 * Template substitution for scenario files: `{{args.x}}`, `{{result.x}}`,
 * `{{inputs.x}}`, `{{deployment.x}}` and `{{id}}`. Substitution only: scenario
 * files never execute code. A string that is exactly one template keeps the
 * value's type (a number stays a number); otherwise values are spliced as text.
 *
 * A path may project over arrays: `name[*]` takes every item of the array at
 * `name`, and the rest of the path is read in each item, so
 * `{{args.entities[*].name}}` is the list of the entities' names (what a tool
 * taking a list needs for its compensation). A projection inside another one
 * flattens (`{{args.a[*].b[*]}}` is one list). A value that is not an array where
 * a path projects, or an item without the rest of the path, leaves the whole
 * template missing: never a list with holes.
 *
 * A path may also read a key it computes: `name[root.path]` reads the field of the map at `name` (or
 * the item of the list there) whose key is the value of `root.path` in the same context, so
 * `{{leg.prices[args.cabin]}}` is the price of the cabin the call names. The key path is read in the
 * whole context (never in a projected item), is one plain path (no brackets of its own), and its value
 * is a text or a number; any other value, or no entry under that key, leaves the template missing.
 * A key written as a whole number is itself (`{{routes[0].origin}}`), and in a list a negative one
 * counts from the end (`{{routes[-1].destination}}` is the last item's).
 *
 * @example
 * renderValue('{{args.amount}}', { args: { amount: 1200 } }) // 1200
 * renderValue('INV for {{inputs.customer}}', { inputs: { customer: 'acme' } }) // 'INV for acme'
 * renderValue('{{args.entities[*].name}}', { args: { entities: [{ name: 'a' }, { name: 'b' }] } }) // ['a', 'b']
 * renderValue('{{leg.prices[args.cabin]}}', { args: { cabin: 'economy' }, lookups: { leg: { prices: { economy: 120 } } } }) // 120
 */
export const TEMPLATE_ROOTS = ['args', 'result', 'inputs', 'deployment', 'id', 'before', 'seq'] as const;

export interface TemplateContext {
  args?: Record<string, unknown>;
  result?: unknown;
  inputs?: Record<string, unknown>;
  deployment?: Record<string, unknown>;
  id?: string;
  /**
   * The rows a tool's `lookups:` found, by lookup name: `{{order.status}}` reads `lookups.order`
   * (a lookup that found no row is missing). A lookup name is never one of TEMPLATE_ROOTS.
   */
  lookups?: Record<string, unknown>;
  /** `{{before.order.address}}`: the looked-up rows as they were before the call's effects. */
  before?: Record<string, unknown>;
  /** `{{seq.NAME}}`: the sequence number this call takes of sequence NAME (1, 2, 3 per run). */
  seq?: Record<string, number>;
}

/** The object a path's root is read from: the context, or its lookups for a lookup name. */
function rootHolder(ctx: TemplateContext, root: string): object | undefined {
  if (Object.hasOwn(ctx, root) && root !== 'lookups') return ctx;
  const l = ctx.lookups;
  return l !== undefined && Object.hasOwn(l, root) ? l : undefined;
}

/** What to put where a template's value is missing: '' (text), '*' (a wildcard), or keep the template text. */
export type OnMissing = 'empty' | 'wildcard' | 'keep';

// Linear patterns only: the path is captured whole and trimmed in code. (`\{\{\s*([^{}]*?)\s*\}\}`
// backtracked cubically: "{{" and a few thousand spaces kept the loader busy for a minute.)
const TEMPLATE = /\{\{([^{}]*)\}\}/g;

/** Every `{{path}}` in a string, in order, with where it starts and how long it is (path trimmed). */
export function templateMatches(text: string): { index: number; length: number; path: string }[] {
  if (!text.includes('{{')) return [];
  return [...text.matchAll(TEMPLATE)].map((m) => ({ index: m.index, length: m[0].length, path: (m[1] ?? '').trim() }));
}

/** Every `{{path}}` in a string, in order. */
export function templatePaths(text: string): string[] {
  return templateMatches(text).map((m) => m.path);
}

/** The path of a string that is exactly one template (`{{ args.x }}`), else undefined. */
export function wholeTemplatePath(text: string): string | undefined {
  if (!text.startsWith('{{') || !text.endsWith('}}') || text.length < 4) return undefined;
  const inner = text.slice(2, -2);
  return /[{}]/.test(inner) ? undefined : inner.trim();
}

/** The marker of a projection at the end of a path segment (`entities[*]`). */
const EACH = '[*]';

/**
 * One segment of a template path: the field it names, whether it projects over the array there, and
 * the path whose value is the key read below the field (`prices[args.cabin]`).
 */
export interface PathStep {
  field: string;
  each: boolean;
  key?: string;
}

/** A segment `name[root.path]`: the field, and the key's path (one plain path, no brackets of its own). */
const KEYED = /^([^[\]]*)\[\s*([^[\]*\s][^[\]]*?)\s*\]$/;

/** A path split at its dots outside brackets (`a.b[args.c].d` is three segments). */
function pathSegments(path: string): string[] {
  if (!path.includes('[')) return path.split('.');
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of path) {
    if (c === '[') depth++;
    else if (c === ']') depth--;
    if (c === '.' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/**
 * A template path's segments, split at the dots (outside brackets), each with its projection or key.
 * A segment with brackets of another form keeps them in its field (the loader reports it).
 *
 * @example
 * templateSteps('args.entities[*].name') // [{ field: 'args', each: false }, { field: 'entities', each: true }, { field: 'name', each: false }]
 * templateSteps('leg.prices[args.cabin]') // [{ field: 'leg', each: false }, { field: 'prices', each: false, key: 'args.cabin' }]
 */
export function templateSteps(path: string): PathStep[] {
  return pathSegments(path).map((p) => {
    if (p.endsWith(EACH)) return { field: p.slice(0, -EACH.length), each: true };
    const keyed = KEYED.exec(p);
    return keyed ? { field: keyed[1] as string, each: false, key: keyed[2] as string } : { field: p, each: false };
  });
}

/** A key written as a whole number: itself, not a path. */
export const LITERAL_KEY = /^-?\d+$/;

/** The key a keyed step reads: a whole number as written, or the text of its path's value (a text or a number), else undefined. */
function keyOf(ctx: TemplateContext, keyPath: string): string | undefined {
  if (LITERAL_KEY.test(keyPath)) return keyPath;
  const k = lookupTemplate(ctx, keyPath);
  return typeof k === 'string' ? k : typeof k === 'number' && Number.isFinite(k) ? String(k) : undefined;
}

/** The value at `steps[i..]` below `cur`, projecting and reading keys where a step says so (see the module comment). */
function walkSteps(cur: unknown, steps: readonly PathStep[], i: number, ctx: TemplateContext): unknown {
  for (; i < steps.length; i++) {
    const s = steps[i] as PathStep;
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, s.field)) return undefined;
    cur = (cur as Record<string, unknown>)[s.field];
    if (s.key !== undefined) {
      let k = keyOf(ctx, s.key);
      // In a list, a negative index counts from the end.
      if (k !== undefined && Array.isArray(cur) && LITERAL_KEY.test(k) && Number(k) < 0)
        k = String(cur.length + Number(k));
      if (k === undefined || cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, k)) return undefined;
      cur = (cur as Record<string, unknown>)[k];
    }
    if (!s.each) continue;
    if (!Array.isArray(cur)) return undefined;
    const flatten = steps.slice(i + 1).some((x) => x.each);
    const out: unknown[] = [];
    for (const item of cur) {
      const v = walkSteps(item, steps, i + 1, ctx);
      if (v === undefined) return undefined;
      if (flatten && Array.isArray(v)) out.push(...(v as unknown[]));
      else out.push(v);
    }
    return out;
  }
  return cur;
}

/**
 * The value a template path names in a context (undefined: missing), projections included.
 *
 * @example
 * lookupTemplate({ result: { rows: [{ id: 1 }, { id: 2 }] } }, 'result.rows[*].id') // [1, 2]
 */
export function lookupTemplate(ctx: TemplateContext, path: string): unknown {
  const steps = templateSteps(path.trim());
  if (steps[0]?.field === 'id' && !steps[0].each) return steps.length === 1 ? ctx.id : undefined;
  const holder = rootHolder(ctx, steps[0]?.field ?? '');
  return holder === undefined ? undefined : walkSteps(holder, steps, 0, ctx);
}

function lookupParts(ctx: TemplateContext, parts: readonly string[], steps?: readonly PathStep[]): unknown {
  // A projection may start at the root: `{{items[*].price}}` over a list lookup.
  const root = (steps ? steps[0]?.field : parts[0]) ?? '';
  if (root === 'id') return parts.length === 1 ? ctx.id : undefined;
  // Own properties only: `{{args.constructor}}` of a call without that argument is missing, not Object.
  const holder = rootHolder(ctx, root);
  if (holder === undefined) return undefined;
  // A path with a projection or a key is walked step by step; one without (nearly every path) takes the plain loop.
  if (steps) return walkSteps(holder, steps, 0, ctx);
  let cur: unknown = (holder as Record<string, unknown>)[root];
  for (let i = 1; i < parts.length; i++) {
    const p = parts[i] as string;
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, p)) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

/** A `{{path}}` of a template, its path split once (`steps` only when it projects or reads a key). */
interface Slot {
  path: string;
  parts: string[];
  steps?: PathStep[];
}

function slotOf(path: string): Slot {
  const parts = path.split('.');
  return path.includes('[') ? { path, parts, steps: templateSteps(path) } : { path, parts };
}

/** A string holding templates, split once: exactly one template (its value keeps its type), or text and slots. */
type Compiled = { whole: Slot } | { pieces: (string | Slot)[] };

/** Strings with templates come from scenarios and plans, so they are few, and rendered on every call. */
const compiledTemplates = new Map<string, Compiled>();

function compileTemplate(text: string): Compiled {
  let c = compiledTemplates.get(text);
  if (c) return c;
  const whole = wholeTemplatePath(text);
  if (whole !== undefined) c = { whole: slotOf(whole) };
  else {
    // The same split as text.replace(TEMPLATE, ...): the text between matches, and each match's path trimmed.
    const pieces: (string | Slot)[] = [];
    let last = 0;
    for (const m of text.matchAll(TEMPLATE)) {
      if (m.index > last) pieces.push(text.slice(last, m.index));
      pieces.push(slotOf((m[1] ?? '').trim()));
      last = m.index + m[0].length;
    }
    if (last < text.length) pieces.push(text.slice(last));
    c = { pieces };
  }
  if (compiledTemplates.size >= 20_000) compiledTemplates.clear(); // a bound, should anything render unbounded text
  compiledTemplates.set(text, c);
  return c;
}

function missingText(path: string, onMissing: OnMissing): string {
  return onMissing === 'wildcard' ? '*' : onMissing === 'keep' ? `{{${path}}}` : '';
}

function asText(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

export function renderString(text: string, ctx: TemplateContext, onMissing: OnMissing = 'empty'): unknown {
  // Without "{{" a string is neither one template nor holds any.
  if (!text.includes('{{')) return text;
  const c = compileTemplate(text);
  if ('whole' in c) {
    const v = lookupParts(ctx, c.whole.parts, c.whole.steps);
    return v === undefined ? missingText(c.whole.path, onMissing) : v;
  }
  return renderPieces(c.pieces, ctx, onMissing);
}

function renderPieces(pieces: readonly (string | Slot)[], ctx: TemplateContext, onMissing: OnMissing): string {
  let out = '';
  for (const piece of pieces) {
    if (typeof piece === 'string') out += piece;
    else {
      const v = lookupParts(ctx, piece.parts, piece.steps);
      out += v === undefined ? missingText(piece.path, onMissing) : asText(v);
    }
  }
  return out;
}

/** Renders templates in every string of a JSON-like value (keys are left as they are). */
export function renderValue(value: unknown, ctx: TemplateContext, onMissing: OnMissing = 'empty'): unknown {
  if (typeof value === 'string') return renderString(value, ctx, onMissing);
  if (Array.isArray(value)) return value.map((v) => renderValue(v, ctx, onMissing));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    // Keys, not entries: no pair is made per value (every call renders its tool's reply).
    const o = value as Record<string, unknown>;
    for (const k of Object.keys(o)) out[k] = renderValue(o[k], ctx, onMissing);
    return out;
  }
  return value;
}

/** Renders a template to text, for fact values. */
export function renderText(text: string, ctx: TemplateContext, onMissing: OnMissing = 'empty'): string {
  return asText(renderString(text, ctx, onMissing));
}

/**
 * renderText, or undefined when the text is exactly one template (`{{ args.x }}`) whose path has no
 * value in the context: a fact value, and whether it is unknown, from one look at its split template.
 */
export function renderTextUnlessMissing(text: string, ctx: TemplateContext, onMissing: OnMissing): string | undefined {
  if (!text.includes('{{')) return text;
  const c = compileTemplate(text);
  if ('whole' in c) {
    const v = lookupParts(ctx, c.whole.parts, c.whole.steps);
    return v === undefined ? undefined : asText(v);
  }
  return renderPieces(c.pieces, ctx, onMissing);
}
