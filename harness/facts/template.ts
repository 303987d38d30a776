import { renderText, type OnMissing, type TemplateContext } from '../templates/render.ts';
import { formatFact, mustParseFact, type Fact } from './fact.ts';

/** Fact templates come from scenario files, so they are few: parse each once (it was ~15% of a short run). */
const templates = new Map<string, Fact>();
function parsedTemplate(text: string): Fact {
  let f = templates.get(text);
  if (!f) {
    if (templates.size > 50_000) templates.clear(); // a bound, should anything render unbounded text
    f = mustParseFact(text);
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
  const f = parsedTemplate(text);
  const args: Record<string, string> = {};
  for (const [k, v] of Object.entries(f.args)) args[k] = renderText(v, ctx, onMissing);
  return { name: f.name, args };
}

export function renderFactText(text: string, ctx: TemplateContext, onMissing: OnMissing = 'wildcard'): string {
  return formatFact(renderFact(text, ctx, onMissing));
}
