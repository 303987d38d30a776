/**
 * Classes that depend on the deployment: shown for the scenario's deployment
 * (info), and a warning where the same tool name has another class in another
 * linted file's deployment (drift): a tool reviewed under one deployment is
 * misjudged under the other.
 */
import { deploymentValue, effectiveClass, evaluateCondition, parseCondition } from '../../../domain/rules/classes.ts';
import type { Scenario, Tool } from '../../../core/scenario.ts';
import { finding, type LintFinding, type Rule, type RuleContext } from '../types.ts';

export const deploymentClass: Rule = {
  id: 'deployment-class',
  description: 'a class that depends on the deployment (info), and its drift across the linted deployments (warning)',
  check(ctx: RuleContext): LintFinding[] {
    const s = ctx.scenario;
    const out: LintFinding[] = [];
    s.tools.forEach((t, i) => {
      if (typeof t.reversibility === 'string') return;
      const cls = effectiveClass(t, s.deployment);
      out.push(
        finding(
          ctx,
          this.id,
          'info',
          ['tools', i, 'reversibility'],
          `"${t.name}" is ${cls} under this deployment (${why(t, s)})`,
          `its class changes with ${conditionPaths(t).join(', ') || 'the deployment'}; review it whenever those change`,
        ),
      );
      const elsewhere = ctx.all
        .filter((o) => o.file !== ctx.file)
        .flatMap((o) =>
          o.scenario.tools
            .filter((x) => x.name === t.name)
            .map((x) => ({ file: o.file, scenario: o.scenario, cls: effectiveClass(x, o.scenario.deployment) })),
        )
        .filter((o) => o.cls !== cls);
      for (const o of elsewhere) {
        out.push(
          finding(
            ctx,
            this.id,
            'warning',
            ['tools', i, 'reversibility'],
            `class drift: "${t.name}" is ${cls} here but ${o.cls} in ${o.file} (${deploymentText(o.scenario, conditionPaths(t))})`,
            'the same tool changes class between deployments: planners and guards must use the class as deployed, and recovery differs',
          ),
        );
      }
    });
    return out;
  },
};

function conditionPaths(t: Tool): string[] {
  if (typeof t.reversibility === 'string') return [];
  const paths = t.reversibility.flatMap((r) => {
    if (r.when === undefined) return [];
    const p = parseCondition(r.when);
    return p.ok ? [`deployment.${p.value.path.join('.')}`] : [];
  });
  return [...new Set(paths)];
}

function deploymentText(s: Scenario, paths: string[]): string {
  if (paths.length === 0) return 'its deployment';
  return paths
    .map((p) => `${p} = ${JSON.stringify(deploymentValue(s.deployment, p.split('.').slice(1))) ?? 'unset'}`)
    .join(', ');
}

/** Which rule gave the class: its condition and the deployment value it read. */
function why(t: Tool, s: Scenario): string {
  if (typeof t.reversibility === 'string') return 'static';
  for (const r of t.reversibility) {
    if (r.when === undefined)
      return `no condition holds (${deploymentText(s, conditionPaths(t))}): the last rule applies`;
    const p = parseCondition(r.when);
    if (p.ok && evaluateCondition(p.value, s.deployment))
      return `${r.when} holds: ${deploymentText(s, [`deployment.${p.value.path.join('.')}`])}`;
  }
  return deploymentText(s, conditionPaths(t));
}
