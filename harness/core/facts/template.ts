import { isMissingWhole, renderText, type OnMissing, type TemplateContext } from '../templates/render.ts';
import { formatPattern, mustParsePattern, type Fact } from './fact.ts';

/** Fact templates come from scenario files, so they are few: parse each once (it was ~15% of a short run). */
const templates = new Map<string, { fact: Fact; wild: ReadonlySet<string> }>();
function parsedTemplate(text: string): { fact: Fact; wild: ReadonlySet<string> } {
  let f = templates.get(text);
  if (!f) {
    if (templates.size > 50_000) templates.clear(); // a bound, should anything render unbounded text
    f = mustParsePattern(text);
    templates.set(text, f);
  }
  return f;
}

/**
 * Renders the templates inside a fact's values.
 *
 * @example
 * renderFact('recipient_verified(email={{args.to}})', { args: { to: 'a@b' } }) // { name: 'recipient_verified', args: { email: 'a@b' } }
 */
export function renderFact(text: string, ctx: TemplateContext, onMissing: OnMissing = 'wildcard'): Fact {
  return renderPattern(text, ctx, onMissing).fact;
}

/** A rendered fact with the keys whose `*` is not literal text. */
export interface RenderedFact {
  fact: Fact;
  /** Keys whose value the template itself wrote as `*`: a wildcard. */
  written: ReadonlySet<string>;
  /** Keys whose value was one template with nothing to fill it (rendered `*` under 'wildcard'): unknown. */
  missing: ReadonlySet<string>;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Renders a fact template and says which of its `*` values are wildcards (written in the template)
 * and which are unknowns (a template with no value), as opposed to a `*` that arrived as text.
 *
 * @example
 * renderPattern('sent(to={{args.to}}, via=*)', { args: { to: '*' } }) // fact sent(to=*, via=*), written {via}, missing {}
 */
export function renderPattern(text: string, ctx: TemplateContext, onMissing: OnMissing = 'wildcard'): RenderedFact {
  const { fact: f, wild } = parsedTemplate(text);
  const args: Record<string, string> = {};
  let written: Set<string> | undefined;
  let missing: Set<string> | undefined;
  for (const [k, v] of Object.entries(f.args)) {
    if (wild.has(k)) (written ??= new Set()).add(k);
    else if (onMissing === 'wildcard' && isMissingWhole(v, ctx)) (missing ??= new Set()).add(k);
    args[k] = renderText(v, ctx, onMissing);
  }
  return { fact: { name: f.name, args }, written: written ?? NONE, missing: missing ?? NONE };
}

/**
 * The fact's text, with template-written wildcards kept bare; under 'wildcard', values with nothing
 * to fill them are unknowns and kept bare too. Any other `*` is literal and written `"*"`.
 */
export function renderFactText(text: string, ctx: TemplateContext, onMissing: OnMissing = 'wildcard'): string {
  const r = renderPattern(text, ctx, onMissing);
  return formatPattern(r.fact, r.missing.size ? new Set([...r.written, ...r.missing]) : r.written);
}
