/**
 * `recover JOURNAL --apply -- COMMAND` (or `--upstream=URL`): the compensations
 * a guard's journal lists, issued against the real server, newest first, as
 * the checklist allows (reversible ones; compensable ones with `--approve`).
 * Each is issued through `issue`, which journals it as every call is (the
 * caller, harness/cli/recover.ts, issues through the guard's journaled call), so
 * the journal says what recovery did, and a second run finds them done.
 *
 * There is no ground truth to prove the server is back where it was (that is
 * the sandbox's `--apply`): what could not be issued, or failed, is reported,
 * and what is left open is counted.
 */
import { notIssued } from './apply.ts';
import type { Checklist, ChecklistItem } from './checklist.ts';

/** What recovery did about one checklist item against the server. */
type ServerDisposition =
  | 'compensated' // the compensation was issued and the server replied ok
  | 'compensation_failed' // it was issued and failed (or could not be sent)
  | 'unapproved' // it needs approval and --approve was not given
  | 'irreversible' // no compensation exists: respond instead
  | 'uncertain' // the call failed ambiguously: reconcile before compensating anything
  | 'disputed' // the tools file disagrees with the journal about it: never applied
  | 'refused' // the guard refused it: it never reached the server
  | 'settled' // a person settled it (recover --settle): nothing to issue
  | 'already_compensated' // the journal shows it compensated already
  | 'is_compensation' // the call was itself a compensation
  | 'intended'; // with --duplicates: the effect the task needed once, kept

interface ServerOutcome {
  step: number;
  tool: string;
  class: ChecklistItem['class'];
  disposition: ServerDisposition;
  operation?: string;
  args?: Record<string, unknown>;
  /** The journal step of the compensating call. */
  issued_at?: number;
  error?: string;
}

export interface ServerReport {
  /** The server the compensations went to. */
  upstream: string;
  /** Newest first, one per checklist item. */
  compensations: ServerOutcome[];
  /** Items still needing someone: not issued (unapproved, irreversible, uncertain) or failed. */
  left: number;
}

/** Issues one compensating call; says whether the server replied ok, and the journal step it got. */
export type IssueCall = (
  operation: string,
  args: Record<string, unknown>,
) => Promise<{ ok: boolean; step: number; error?: string }>;

const LEFT: ReadonlySet<ServerDisposition> = new Set([
  'compensation_failed',
  'unapproved',
  'irreversible',
  'uncertain',
  'disputed',
]);

/**
 * Issues the checklist's compensations, newest first.
 *
 * @example
 * const report = await applyToServer(checklist, (op, args) => proxy.operatorCall(op, args, 'recover'), { approve: false }, upstream.where);
 * process.exitCode = report.left > 0 ? 1 : 0;
 */
export async function applyToServer(
  checklist: Checklist,
  issue: IssueCall,
  opts: { approve: boolean; duplicates?: boolean },
  upstream: string,
): Promise<ServerReport> {
  const compensations: ServerOutcome[] = [];
  for (const item of checklist.items) {
    const base = { step: item.step, tool: item.tool, class: item.class };
    const comp = item.compensation;
    // What the journal says of a disputed call is not what its tools file says: nothing of it is issued.
    const skip = item.disputed
      ? { disposition: 'disputed' as const }
      : item.refused !== undefined
        ? { disposition: 'refused' as const }
        : item.settled
          ? { disposition: 'settled' as const }
          : notIssued(item, opts, 'uncertain');
    if (skip) {
      compensations.push({ ...base, ...skip });
      continue;
    }
    if (!comp) continue; // notIssued skips an item without a compensation
    const r = await issue(comp.operation, comp.args);
    compensations.push({
      ...base,
      disposition: r.ok ? 'compensated' : 'compensation_failed',
      operation: comp.operation,
      args: comp.args,
      issued_at: r.step,
      ...(r.error !== undefined ? { error: r.error } : {}),
    });
  }
  return { upstream, compensations, left: compensations.filter((c) => LEFT.has(c.disposition)).length };
}

const TEXT: Record<ServerDisposition, string> = {
  compensated: 'compensated',
  compensation_failed: 'compensation FAILED',
  unapproved: 'not issued: needs approval (--approve)',
  irreversible: 'not issued: no compensation exists (respond: notify, contain, disclose)',
  uncertain: 'not issued: it failed ambiguously; reconcile first (did it happen?)',
  disputed: 'not issued: DISPUTED, the tools file disagrees with the journal (see the checklist)',
  refused: 'refused by the guard: never sent, nothing to undo',
  settled: 'settled by a person (--settle): nothing issued',
  already_compensated: 'already compensated',
  is_compensation: 'was itself a compensation',
  intended: 'kept: the effect the task needed (--duplicates)',
};

const callText = (op: string, args: Record<string, unknown>) => `${op}(${JSON.stringify(args)})`;

/** One line per checklist item of what recovery did, and the verdict. */
export function serverReportLines(r: ServerReport, mark: { ok(s: string): string; bad(s: string): string }): string[] {
  const out = [`Applied to the server (${r.upstream}), newest first; each compensation is journaled`];
  for (const o of r.compensations) {
    const sign = o.disposition === 'compensated' ? mark.ok('✓') : LEFT.has(o.disposition) ? mark.bad('✗') : '-';
    const what = o.operation ? ` ${callText(o.operation, o.args ?? {})}` : '';
    const at = o.issued_at !== undefined ? ` (journal step ${o.issued_at})` : '';
    out.push(`  ${sign} step ${o.step} ${o.tool}: ${TEXT[o.disposition]}${what}${at}${o.error ? `: ${o.error}` : ''}`);
  }
  out.push(
    r.left === 0
      ? mark.ok('DONE: every compensation the journal calls for was issued and the server accepted it')
      : mark.bad(
          `NOT DONE: ${r.left} item${r.left === 1 ? '' : 's'} could not be issued or failed; see above (the checklist says what to do instead)`,
        ),
  );
  return out;
}
