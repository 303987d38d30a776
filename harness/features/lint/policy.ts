/**
 * Reviewing a guard policy file (`oneway guard --policy`, `eval --guard-policy`):
 * the problems the guard would refuse it with, and a rule that lets irreversible
 * calls through unchecked.
 */
import { policyOf } from '../../engine/guard/policy.ts';
import type { YamlSource } from '../../engine/loader/yaml-source.ts';
import { findingOf, type LintFinding } from './types.ts';

/** The findings of one policy file (as the guard reads it: `undeclared:` allowed). */
export function policyFindings(src: YamlSource): LintFinding[] {
  const loaded = policyOf(src, { production: true });
  if (!loaded.ok) return loaded.problems.map(findingOf);
  const out: LintFinding[] = [];
  for (const cls of ['irreversible', 'undeclared'] as const) {
    if (loaded.value[cls] !== 'auto') continue;
    out.push({
      rule: 'policy-auto',
      severity: 'warning',
      file: src.file,
      ...src.locate([cls]),
      path: cls,
      message:
        cls === 'irreversible'
          ? 'irreversible: auto lets every irreversible call through, whatever its preconditions, siblings or earlier failures'
          : 'undeclared: auto lets the tools the file does not declare through, unchecked and journaled as irreversible',
      hint:
        cls === 'irreversible' ? 'gated (the default) or approval' : 'block (the default): declare the tools you use',
    });
  }
  return out;
}
