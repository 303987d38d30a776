/**
 * A reversible tool's compensation must act under the same authority: the same
 * agent issues it with no new approval. A compensation that needs approval,
 * is itself compensable or irreversible, or needs preconditions the original
 * call did not, acts under another scope: the tool is compensable.
 */
import { effectiveClass } from '../../../domain/rules/classes.ts';
import { factPreconditions, type Tool } from '../../../core/scenario.ts';
import { declaredFact, showFact, unifies } from '../facts.ts';
import { gatesOf } from '../gates.ts';
import { toolShapes } from '../reach.ts';
import { finding, type LintFinding, type Rule, type RuleContext } from '../types.ts';

const HINT =
  'declare it compensable (with compensation_requires_approval as it is), or give it a compensation the same agent can issue alone';

export const reversibleAsymmetric: Rule = {
  id: 'reversible-asymmetric',
  description: 'a reversible tool whose compensation needs approval or acts under another scope (it is compensable)',
  check(ctx: RuleContext): LintFinding[] {
    const s = ctx.scenario;
    const out: LintFinding[] = [];
    s.tools.forEach((t, i) => {
      if (t.read_only || effectiveClass(t, s.deployment) !== 'reversible' || !t.compensating_operation) return;
      const comp = s.tools.find((x) => x.name === t.compensating_operation);
      if (!comp) return; // compensation-undeclared reports it
      const at = ['tools', i, 'compensating_operation'];
      const add = (severity: LintFinding['severity'], message: string) =>
        out.push(finding(ctx, this.id, severity, at, message, HINT));
      if (t.compensation_requires_approval === true) {
        add(
          'error',
          `reversible tool "${t.name}" declares that its compensation ${comp.name} requires approval: not the same authority`,
        );
      }
      const compClass = effectiveClass(comp, s.deployment);
      if (compClass !== 'reversible') {
        add(
          'error',
          `the compensation of reversible tool "${t.name}", ${comp.name}, is ${compClass} itself${deploymentNote(comp)}`,
        );
      }
      const own = new Set(gatesOf(s, t).map((g) => g.precondition));
      const gates = gatesOf(s, comp).filter((g) => !own.has(g.precondition));
      for (const g of gates) {
        const pre = declaredFact(g.precondition, s);
        const asked =
          g.action !== undefined
            ? `${g.tool.name}(action=${g.action})`
            : `${g.tool.name} (for ${pre ? showFact(pre) : g.precondition})`;
        add(
          'error',
          `the compensation of reversible tool "${t.name}", ${comp.name}, needs the approval ${asked} that ${t.name} did not`,
        );
      }
      const gated = new Set(gates.map((g) => g.precondition));
      const extra = factPreconditions(comp).filter((p) => !gated.has(p) && !sameScope(p, t, ctx));
      if (extra.length > 0) {
        const shown = extra.map((p) => declaredFact(p, s)).map((f, k) => (f ? showFact(f) : (extra[k] as string)));
        add(
          'warning',
          `the compensation of reversible tool "${t.name}", ${comp.name}, requires ${shown.join(', ')}, which ${t.name} did not: it may act under another scope`,
        );
      }
    });
    return out;
  },
};

function deploymentNote(t: Tool): string {
  return typeof t.reversibility === 'string' ? '' : ' under this deployment';
}

/**
 * A compensating precondition is within the original's scope when the original required the
 * same fact, establishes it itself, it holds initially, or a read-only (non-approval) tool can
 * verify it: the same agent can meet it alone.
 */
function sameScope(text: string, original: Tool, ctx: RuleContext): boolean {
  const s = ctx.scenario;
  const p = declaredFact(text, s);
  if (!p) return true; // the loader reports facts that do not parse
  if (factPreconditions(original).some((o) => declaredFact(o, s)?.name === p.name)) return true;
  if (toolShapes(s, original, false).some((sh) => unifies(p, sh.fact))) return true;
  if (
    s.world.facts.some((w) => {
      const f = declaredFact(w, s);
      return f !== undefined && unifies(p, f);
    })
  )
    return true;
  return s.tools.some(
    (x) => x.read_only && x.kind !== 'approval' && toolShapes(s, x, false).some((sh) => unifies(p, sh.fact)),
  );
}
