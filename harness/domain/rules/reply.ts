/**
 * What the sandbox adds to a tool's declared reply (`returns:`), in one place: the sandbox writes
 * these fields, and lint (`unknown-result-field`) knows from here that `{{result.x}}` over one of
 * them is not a field the reply cannot have.
 *
 * - an approval tool (`kind: approval`): `approved`, the scripted human's answer;
 * - a tool that reports on others (`reconciles:`, or `reads:` of a table a tool writes): `applied`,
 *   whether any call it reported on applied, and `reported`, each of them with its step;
 * - a tool that `reads:` tables: each table's rows that agree with its arguments, under its name.
 */
import { reportedTools, type ReportingDeclaration } from './reconcile.ts';

export const APPROVED_FIELD = 'approved';
export const APPLIED_FIELD = 'applied';
export const REPORTED_FIELD = 'reported';

/** The fields the sandbox adds to a tool's reply (their values are known only when the call is made). */
export function addedReplyFields(
  t: ReportingDeclaration & { kind: 'action' | 'approval' | 'confirmation' },
  tools: readonly ReportingDeclaration[],
): string[] {
  return [
    ...(t.kind !== 'action' ? [APPROVED_FIELD] : []),
    ...(reportedTools(t, tools).length > 0 ? [APPLIED_FIELD, REPORTED_FIELD] : []),
    ...(t.reads ?? []),
  ];
}
