import { renderText, renderTextUnlessMissing, type OnMissing, type TemplateContext } from '../templates/render.ts';
import { DERIVED, derivedValue } from '../templates/condition.ts';
import { formatSorted, mustParsePattern, type Fact } from './fact.ts';
import { sortStrings } from '../../util/sort.ts';

/** A fact template read once: its name, its written wildcards, its arguments in order and its keys sorted. */
interface ParsedTemplate {
  name: string;
  wild: ReadonlySet<string>;
  entries: readonly (readonly [string, string])[];
  sorted: readonly string[];
}

/** Fact templates come from scenario files, so they are few: parse each once (it was ~15% of a short run). */
const templates = new Map<string, ParsedTemplate>();
function parsedTemplate(text: string): ParsedTemplate {
  let f = templates.get(text);
  if (!f) {
    if (templates.size > 50_000) templates.clear(); // a bound, should anything render unbounded text
    const { fact, wild } = mustParsePattern(text);
    f = { name: fact.name, wild, entries: Object.entries(fact.args), sorted: sortStrings(Object.keys(fact.args)) };
    templates.set(text, f);
  }
  return f;
}

/**
 * Renders the templates inside a fact's values. A value written `"= EXPR"` is derived, as in an
 * effect's `set`: `items="= sorted({{args.item_ids}})"` holds the list sorted, so the fact is the
 * same whatever order a call lists the items in.
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
  return render(parsedTemplate(text), ctx, onMissing);
}

function render(t: ParsedTemplate, ctx: TemplateContext, onMissing: OnMissing): RenderedFact {
  const args: Record<string, string> = {};
  let written: Set<string> | undefined;
  let missing: Set<string> | undefined;
  for (const [k, v] of t.entries) {
    let text: string | undefined;
    if (t.wild.has(k)) (written ??= new Set()).add(k);
    else if (DERIVED.test(v)) {
      // A derived value (`"= sorted({{args.item_ids}})"`): its result as text; none, and it is missing.
      text = derivedText(v, ctx);
      if (text === undefined) {
        if (onMissing === 'wildcard') (missing ??= new Set()).add(k);
        text = missingValue(v, onMissing);
      }
    } else text = renderTextUnlessMissing(v, ctx, onMissing);
    if (text === undefined) {
      // A written wildcard, or one template with nothing to fill it (under 'wildcard', an unknown).
      if (!t.wild.has(k) && onMissing === 'wildcard') (missing ??= new Set()).add(k);
      text = renderText(v, ctx, onMissing);
    }
    args[k] = text;
  }
  return { fact: { name: t.name, args }, written: written ?? NONE, missing: missing ?? NONE };
}

/**
 * A derived fact value's text (`"= EXPR"`, as in an effect's `set`): EXPR's number or list, written
 * as template rendering writes it (a list as its JSON), or undefined when EXPR gives no value.
 *
 * @example
 * derivedText('= sorted({{args.ids}})', { args: { ids: ['b', 'a'] } }) // '["a","b"]'
 */
function derivedText(v: string, ctx: TemplateContext): string | undefined {
  const r = derivedValue(v.replace(DERIVED, ''), ctx);
  if (!r.ok) return undefined;
  return typeof r.value === 'string'
    ? r.value
    : typeof r.value === 'object'
      ? JSON.stringify(r.value)
      : String(r.value);
}

/** What a derived value with no value renders to: as a template with nothing to fill it. */
function missingValue(v: string, onMissing: OnMissing): string {
  return onMissing === 'wildcard' ? '*' : onMissing === 'keep' ? v : '';
}

/**
 * The fact's text, with template-written wildcards kept bare; under 'wildcard', values with nothing
 * to fill them are unknowns and kept bare too. Any other `*` is literal and written `"*"`.
 */
export function renderFactText(text: string, ctx: TemplateContext, onMissing: OnMissing = 'wildcard'): string {
  const t = parsedTemplate(text);
  const r = render(t, ctx, onMissing);
  // The rendered fact has the template's keys: their sorted order is the template's.
  return formatSorted(r.fact, t.sorted, r.missing.size ? new Set([...r.written, ...r.missing]) : r.written);
}
