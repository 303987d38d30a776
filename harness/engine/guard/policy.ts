/**
 * The guard's policy: what each class may do at the sandbox boundary.
 *
 * - `auto`: passes.
 * - `gated`: passes only when its preconditions hold, it is alone in its batch,
 *   and it is not an unreconciled retry (the seed article's rule for irreversible tools).
 * - `approval`: as `gated`, and the scenario's scripted human must approve the
 *   tool (asked with the tool's name as the action) each time.
 * - `block`: never passes.
 *
 * The default is the seed's asymmetric autonomy: reversible and compensable
 * calls are automatic (compensable ones with their compensation scheduled in
 * the record); irreversible calls are gated.
 *
 * `undeclared` (`oneway guard` only) is the rule for tools the server lists and
 * the tools file does not declare: blocked unless the policy says otherwise. An
 * evaluation rejects every call of an undeclared tool before the guard, so there
 * it may only say `block`.
 */
import { z } from 'zod';
import type { Result } from '../../core/errors.ts';
import { readSource } from '../loader/load.ts';
import { schemaProblems } from '../loader/schema-problems.ts';
import { parseYamlSource, type YamlSource } from '../loader/yaml-source.ts';

const POLICY_RULES = ['auto', 'gated', 'approval', 'block'] as const;
const PolicyRule = z.enum(POLICY_RULES);
export type PolicyRule = z.infer<typeof PolicyRule>;

export const Policy = z.strictObject({
  reversible: PolicyRule.default('auto'),
  compensable: PolicyRule.default('auto'),
  irreversible: PolicyRule.default('gated'),
  /**
   * `oneway guard` only: a tool the server lists that the tools file does not declare (its class
   * unknown, so judged as irreversible would be). Absent: block (fail closed).
   */
  undeclared: PolicyRule.optional(),
  /**
   * `oneway guard` only: who approves a call held for approval. `cmd`: `--approve-cmd` alone (the
   * default when one is given); `client`: the client's user through MCP elicitation, and the command
   * only when the client cannot be asked. Absent: the command when given, else the client.
   */
  approver: z.enum(['cmd', 'client']).optional(),
});
export type Policy = z.infer<typeof Policy>;

export const DEFAULT_POLICY: Policy = { reversible: 'auto', compensable: 'auto', irreversible: 'gated' };

/**
 * Reads a policy file (YAML or JSON), with positioned problems for mistakes. For an evaluation (the
 * default), `undeclared` other than `block` is a problem: every call of an undeclared tool is
 * rejected there before the guard, so no other rule could be honoured.
 */
export function loadPolicyFile(path: string, opts: { production?: boolean } = {}): Result<Policy> {
  const text = readSource(path);
  if (!text.ok) return text;
  const src = parseYamlSource(text.value, path);
  if (!src.ok) return src;
  return policyOf(src.value, opts);
}

/** A parsed policy file's policy, or its problems (see `loadPolicyFile`; lint reads policy files through it). */
export function policyOf(src: YamlSource, opts: { production?: boolean } = {}): Result<Policy> {
  const path = src.file;
  const parsed = Policy.safeParse(src.value ?? {}, { reportInput: true });
  if (!parsed.success) return { ok: false, problems: schemaProblems(parsed.error.issues, src, { schema: Policy }) };
  const undeclared = parsed.data.undeclared;
  if (!opts.production && parsed.data.approver !== undefined)
    return {
      ok: false,
      problems: [
        {
          code: 'schema',
          file: path,
          ...src.locate(['approver']),
          path: 'approver',
          message: `approver: ${parsed.data.approver} applies to oneway guard only: in an evaluation the scenario's approvals answer`,
          hint: 'remove it here, or use this policy file with oneway guard',
        },
      ],
    };
  if (!opts.production && undeclared !== undefined && undeclared !== 'block')
    return {
      ok: false,
      problems: [
        {
          code: 'schema',
          file: path,
          ...src.locate(['undeclared']),
          path: 'undeclared',
          message: `undeclared: ${undeclared} applies to oneway guard only: an evaluation rejects every call of a tool the scenario does not declare`,
          hint: 'remove it here, or keep undeclared: block (what an evaluation does anyway)',
        },
      ],
    };
  return { ok: true, value: parsed.data };
}
