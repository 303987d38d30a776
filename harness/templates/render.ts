/**
 * Template substitution for scenario files: `{{args.x}}`, `{{result.x}}`,
 * `{{inputs.x}}`, `{{deployment.x}}` and `{{id}}`. Substitution only: scenario
 * files never execute code. A string that is exactly one template keeps the
 * value's type (a number stays a number); otherwise values are spliced as text.
 *
 * @example
 * renderValue('{{args.amount}}', { args: { amount: 1200 } }) // 1200
 * renderValue('INV for {{inputs.customer}}', { inputs: { customer: 'acme' } }) // 'INV for acme'
 */
export const TEMPLATE_ROOTS = ['args', 'result', 'inputs', 'deployment', 'id'] as const;
export type TemplateRoot = (typeof TEMPLATE_ROOTS)[number];

export interface TemplateContext {
  args?: Record<string, unknown>;
  result?: unknown;
  inputs?: Record<string, unknown>;
  deployment?: Record<string, unknown>;
  id?: string;
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

export function lookup(ctx: TemplateContext, path: string): unknown {
  const parts = path.split('.');
  const root = parts[0];
  if (root === 'id') return parts.length === 1 ? ctx.id : undefined;
  // Own properties only: `{{args.constructor}}` of a call without that argument is missing, not Object.
  if (!Object.hasOwn(ctx, root ?? '')) return undefined;
  let cur: unknown = (ctx as Record<string, unknown>)[root ?? ''];
  for (const p of parts.slice(1)) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, p)) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

function missingText(path: string, onMissing: OnMissing): string {
  return onMissing === 'wildcard' ? '*' : onMissing === 'keep' ? `{{${path}}}` : '';
}

function asText(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

export function renderString(text: string, ctx: TemplateContext, onMissing: OnMissing = 'empty'): unknown {
  const whole = wholeTemplatePath(text);
  if (whole !== undefined) {
    const v = lookup(ctx, whole);
    return v === undefined ? missingText(whole, onMissing) : v;
  }
  if (!text.includes('{{')) return text;
  return text.replace(TEMPLATE, (_m, raw: string) => {
    const path = raw.trim();
    const v = lookup(ctx, path);
    return v === undefined ? missingText(path, onMissing) : asText(v);
  });
}

/** Renders templates in every string of a JSON-like value (keys are left as they are). */
export function renderValue(value: unknown, ctx: TemplateContext, onMissing: OnMissing = 'empty'): unknown {
  if (typeof value === 'string') return renderString(value, ctx, onMissing);
  if (Array.isArray(value)) return value.map((v) => renderValue(v, ctx, onMissing));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = renderValue(v, ctx, onMissing);
    return out;
  }
  return value;
}

/** Renders a template to text, for fact values. */
export function renderText(text: string, ctx: TemplateContext, onMissing: OnMissing = 'empty'): string {
  return asText(renderString(text, ctx, onMissing));
}
