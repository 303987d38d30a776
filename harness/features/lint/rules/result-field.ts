/**
 * A `{{result.x}}` over a field the tool's reply cannot have renders empty on
 * every call. The reply is what the tool declares under `returns:`, plus what
 * the sandbox adds (harness/domain/rules/reply.ts): `approved` for an approval
 * tool, `applied` and `reported` for a tool that reports on others
 * (`reconciles:`, or `reads:` of a table a tool writes), and each table it `reads:`. In
 * compensation_args the compensation can then never be issued with the right
 * arguments (an error); in an effect the row or fact gets an empty value (a
 * warning).
 */
import { templateMatches, templateSteps } from '../../../core/templates/render.ts';
import type { Tool } from '../../../core/scenario.ts';
import { declaredKinds, effectPlaces } from '../../../core/effects/index.ts';
import { addedReplyFields } from '../../../domain/rules/reply.ts';
import { didYouMean, joinHints } from '../../../util/did-you-mean.ts';
import type { FieldPath } from '../../../engine/loader/yaml-source.ts';
import { finding, type LintFinding, type Rule, type RuleContext, type Severity } from '../types.ts';

/**
 * The part of a result path the reply cannot have (`invoice.number`), with the fields it has
 * there (as paths); undefined when it may have it (a value over a template, a list, or a field
 * the sandbox adds).
 */
function missingField(
  path: readonly string[],
  t: Tool,
  added: readonly string[],
): { missing: string; known: string[] } | undefined {
  const first = path[0];
  if (first === undefined || added.includes(first)) return undefined;
  let cur: unknown = t.returns ?? {};
  for (const [depth, segment] of path.entries()) {
    if (typeof cur === 'string' && cur.includes('{{')) return undefined; // its value is known only when the call is made
    if (Array.isArray(cur)) return undefined;
    const map = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>) : undefined;
    if (!map || !Object.hasOwn(map, segment)) {
      const prefix = path
        .slice(0, depth)
        .map((p) => `${p}.`)
        .join('');
      const here = map ? Object.keys(map).map((k) => `${prefix}${k}`) : [];
      return { missing: `${prefix}${segment}`, known: depth === 0 ? [...here, ...added] : here };
    }
    cur = map[segment];
  }
  return undefined;
}

/** Every string in a JSON-like value with its path (keys of mappings are not rendered: the loader refuses templates there). */
function strings(v: unknown, path: FieldPath): { text: string; path: FieldPath }[] {
  if (typeof v === 'string') return [{ text: v, path }];
  if (Array.isArray(v)) return v.flatMap((x, i) => strings(x, [...path, i]));
  if (v !== null && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => strings(x, [...path, k]));
  return [];
}

export const resultField: Rule = {
  id: 'unknown-result-field',
  description: 'a {{result.x}} over a field the tool’s reply cannot have (not in returns:, not added by the sandbox)',
  check(ctx: RuleContext): LintFinding[] {
    const out: LintFinding[] = [];
    const tools = ctx.scenario.tools;
    tools.forEach((t, i) => {
      const added = addedReplyFields(t, tools);
      const places: { text: string; path: FieldPath; severity: Severity }[] = [
        ...strings(t.compensation_args ?? {}, ['tools', i, 'compensation_args']).map((s) => ({
          ...s,
          severity: 'error' as const,
        })),
        ...effectPlaces(t.effects).flatMap(([e, place]) =>
          declaredKinds(e).flatMap((kind) =>
            strings(e[kind], ['tools', i, ...place, kind]).map((s) => ({ ...s, severity: 'warning' as const })),
          ),
        ),
      ];
      for (const place of places) {
        for (const m of templateMatches(place.text)) {
          // A projection (`entities[*]`) is the field it projects over: its value there is a list.
          const parts = templateSteps(m.path).map((s) => s.field);
          if (parts[0] !== 'result' || parts.length < 2) continue;
          const missing = missingField(parts.slice(1), t, added);
          if (!missing) continue;
          const inCompensation = place.severity === 'error';
          const has = missing.known.length ? missing.known.join(', ') : 'nothing';
          const declared = t.returns
            ? `the reply of ${t.name} has ${has} (its returns:${added.length ? ` and what the sandbox adds` : ''})`
            : `${t.name} declares no returns:, so its reply ${missing.known.length ? `has only ${has}` : 'is empty'}`;
          out.push(
            finding(
              ctx,
              this.id,
              place.severity,
              place.path,
              `{{${m.path}}}: the reply of ${t.name} has no ${missing.missing}, so it renders empty on every call${
                inCompensation
                  ? ` and the compensation${t.compensating_operation ? ` ${t.compensating_operation}` : ''} is never issued with the right arguments`
                  : ''
              }`,
              joinHints(
                didYouMean(missing.missing, missing.known),
                declared,
                'declare the field under returns: (what the tool replies), or take the value from {{args.x}}',
              ),
            ),
          );
        }
      }
    });
    return out;
  },
};
