/**
 * A goal fact must be reachable: some tool or initial fact must establish it
 * (else no run completes), and, for a fair comparison, through calls whose
 * preconditions can hold (else only a premature call completes the run, which
 * is sometimes the point of a scenario: then it is a warning, not an error).
 * A goal only tools with a required parameter no planner can fill establish
 * (no goal argument, precondition, input, default, result or smallest value
 * gives it) is a warning too: the built-in planners stop at 0 steps there.
 */
import type { Fact } from '../../../core/facts/fact.ts';
import { didYouMean, joinHints } from '../../../util/did-you-mean.ts';
import { factPreconditions, type Scenario, type Tool } from '../../../core/scenario.ts';
import { declaredFact, showFact, unifies } from '../facts.ts';
import { everApproved, gatesOf } from '../gates.ts';
import { canHold, reachOf, type Reach } from '../reach.ts';
import { finding, type LintFinding, type Rule, type RuleContext } from '../types.ts';
import { fitsParameter } from '../../../domain/rules/arguments.ts';
import { isStructured, minimalValue } from '../../../util/param-types.ts';
import { expandedEffects } from '../../../core/effects/index.ts';

export const unreachableGoal: Rule = {
  id: 'unreachable-goal',
  description: 'a goal that no tool can establish (error), or only a premature call can (warning)',
  check(ctx: RuleContext): LintFinding[] {
    // A tools file has no goal of its own (a tools block's is a placeholder; a guard enforces no goal).
    if (ctx.kind === 'tools') return [];
    const s = ctx.scenario;
    const reach = reachOf(s);
    const out: LintFinding[] = [];
    s.goal.forEach((text, k) => {
      const g = declaredFact(text, s);
      if (!g) return;
      if (!canHold(g, reach.declared)) {
        const names = [...new Set(reach.declared.map((d) => d.fact.name))];
        out.push(
          finding(
            ctx,
            this.id,
            'error',
            ['goal', k],
            `goal ${showFact(g)} cannot be reached: no tool establishes it and no initial fact is one`,
            joinHints(didYouMean(g.name, names), 'add a tool that establishes it, or fix the fact name and arguments'),
          ),
        );
        return;
      }
      const unfilled = unfillable(s, g, reach);
      if (unfilled) {
        out.push(
          finding(
            ctx,
            this.id,
            'warning',
            ['goal', k],
            `goal ${showFact(g)} cannot be reached by any planner: ${unfilled}`,
            'give the parameter a default, an input of the same name, or mention it in the fact the tool establishes or in a precondition',
          ),
        );
        return;
      }
      if (canHold(g, reach.reachable)) return;
      out.push(
        finding(
          ctx,
          this.id,
          'warning',
          ['goal', k],
          `goal ${showFact(g)} is reachable only through a premature call: ${blockers(s, g, reach)}`,
          'if the scenario means the planner to stop short (a gate that says no), this is by design; otherwise make the missing preconditions establishable',
        ),
      );
    });
    return out;
  },
};

/** The tools that can establish a goal, in declaration order (from the reach's declared shapes). */
function establishers(goal: Fact, reach: Reach): Tool[] {
  const tools = new Set<Tool>();
  for (const sh of reach.declared) if (sh.tool && unifies(goal, sh.fact)) tools.add(sh.tool);
  return [...tools];
}

/** Why the tools that establish a goal can never be called with their preconditions holding. */
function blockers(s: Scenario, goal: Fact, reach: Reach): string {
  const parts = establishers(goal, reach).map(
    (t) => `${t.name} needs ${missingOf(s, t, reach).join(', ') || 'preconditions that cannot all hold'}`,
  );
  return parts.join('; ');
}

function missingOf(s: Scenario, t: Tool, reach: Reach): string[] {
  const denied = new Map(
    gatesOf(s, t)
      .filter((g) => g.action !== undefined && !everApproved(s, g.action))
      .map((g) => [g.precondition, g]),
  );
  return factPreconditions(t).flatMap((text) => {
    const p = declaredFact(text, s);
    if (!p || canHold(p, reach.reachable)) return [];
    const gate = denied.get(text);
    return [`${showFact(p)}${gate ? ` (the scripted human never approves ${gate.action})` : ''}`];
  });
}

const ARG = /\{\{\s*args\.([A-Za-z0-9_-]+)/g;
const argsIn = (texts: readonly string[]) =>
  new Set(texts.flatMap((t) => [...t.matchAll(ARG)].map((m) => m[1] as string)));

/**
 * When every tool that establishes the goal has a required parameter no source fills
 * (as harness/domain/planner-kit/args.ts completes arguments), why; undefined when one can be called.
 * A goal an initial fact already provides needs no tool.
 */
function unfillable(s: Scenario, goal: Fact, reach: Reach): string | undefined {
  if (reach.declared.some((sh) => !sh.tool && unifies(goal, sh.fact))) return undefined;
  const tools = establishers(goal, reach);
  if (tools.length === 0) return undefined;
  const returned = new Set(s.tools.flatMap((t) => Object.keys(t.returns ?? {})));
  const why: string[] = [];
  for (const t of tools) {
    const props = (t.parameters.properties ?? {}) as Record<string, Record<string, unknown>>;
    const bound = argsIn([
      ...factPreconditions(t),
      ...expandedEffects(t.effects).flatMap((e) => (e.establish !== undefined ? [e.establish] : [])),
    ]);
    const missing = ((t.parameters.required ?? []) as string[]).filter((p) => {
      if (p === t.idempotency_key || bound.has(p) || s.inputs[p] !== undefined || returned.has(p)) return false;
      const schema = props[p] ?? {};
      if (
        schema.default !== undefined ||
        schema.const !== undefined ||
        (Array.isArray(schema.enum) && schema.enum.length === 1)
      )
        return false;
      if (isStructured(schema)) {
        const v = minimalValue(schema, (name) => s.inputs[name]);
        try {
          if (v !== undefined && fitsParameter(t.parameters, p, v)) return false;
        } catch {
          return false; // a schema that does not compile is the loader's finding, not this one
        }
      }
      return true;
    });
    if (missing.length === 0) return undefined;
    why.push(
      `${t.name} needs ${missing.join(', ')}, which no goal argument, precondition, input, default or result gives`,
    );
  }
  return why.join('; ');
}
