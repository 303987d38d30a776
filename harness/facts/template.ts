import { renderText, type OnMissing, type TemplateContext } from '../templates/render.ts';
import { formatFact, mustParseFact, type Fact } from './fact.ts';

/**
 * Renders the templates inside a fact's values.
 *
 * @example
 * renderFact('recipient_verified(email={{args.to}})', { args: { to: 'a@b' } }) // { name: 'recipient_verified', args: { email: 'a@b' } }
 */
export function renderFact(text: string, ctx: TemplateContext, onMissing: OnMissing = 'wildcard'): Fact {
  const f = mustParseFact(text);
  const args: Record<string, string> = {};
  for (const [k, v] of Object.entries(f.args)) args[k] = renderText(v, ctx, onMissing);
  return { name: f.name, args };
}

export function renderFactText(text: string, ctx: TemplateContext, onMissing: OnMissing = 'wildcard'): string {
  return formatFact(renderFact(text, ctx, onMissing));
}
