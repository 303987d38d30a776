/**
 * Who approves a call the guard holds for approval (the policy's `approval`
 * rule, or a duplicate of a call that applied) is the policy's to say:
 *
 * - with `--approve-cmd` (and no `approver: client` in the policy), the
 *   command alone: a shell command that gets the call as JSON on its stdin
 *   (one line: tool, arguments, class, preconditions, session, step, journal,
 *   and `repeats`, the step of the applied call a duplicate repeats) and
 *   approves by exiting 0 (any other exit refuses; its stdout and stderr go to
 *   the guard's stderr, never into the protocol). The client is never asked,
 *   whatever it declares: an agent's own client must not approve the agent;
 * - with `approver: client` in the policy, or with no command, the client's
 *   user through MCP elicitation, when the session's client declared it can
 *   take a form: accept forwards the call, decline or cancel refuses it. With
 *   `approver: client` and a client that cannot be asked, the command is;
 * - else nobody, and the call is refused.
 *
 * No answer within the approval timeout is a refusal. The answer says who gave
 * it, and the journal records who let each call through (`approved_by`).
 */
import { spawn } from 'node:child_process';
import type { ToolClass } from '../../core/scenario.ts';

/** The call an approver is asked about (what `--approve-cmd` reads on stdin). */
export interface ApprovalRequest {
  tool: string;
  arguments: Record<string, unknown>;
  /** Null: a tool the declarations do not name. */
  class: ToolClass | null;
  preconditions: { held: string[]; missing: string[] };
  session: string;
  step: number;
  journal: string;
  /** A duplicate: the step of the applied call it repeats. */
  repeats?: number;
}

export interface Approvers {
  /** Asks the session's client (MCP elicitation), when it declared form elicitation. */
  elicit?: ((message: string, timeoutMs: number) => Promise<'accept' | 'decline' | 'cancel'>) | undefined;
  command?: string | undefined;
  /** The policy's `approver`: `client` asks the client first; otherwise a command, when given, is the only approver. */
  approver?: 'client' | 'cmd' | undefined;
  timeoutMs: number;
  /** Where the command's output goes. */
  log(text: string): void;
}

export interface ApprovalAnswer {
  approved: boolean;
  /** Who answered, in words, for the refusal. */
  by: string;
  /** Who answered, for the journal's `approved_by`; absent when nobody could be asked. */
  who?: 'cmd' | 'client';
}

/** What the client's user is asked; a duplicate says which applied call it repeats. */
function approvalMessage(r: ApprovalRequest): string {
  const cls = r.class ?? 'undeclared (its class is unknown)';
  const repeat =
    r.repeats === undefined
      ? ''
      : ` This repeats step ${r.repeats}, the same call, which applied: accepting does it a second time.`;
  return `oneway guard: approve ${r.tool}(${JSON.stringify(r.arguments)})? It is ${cls}.${repeat} Accept to let it through to the server, decline to refuse it.`;
}

/**
 * Asks the approver the policy names (see the module comment).
 *
 * @example
 * const { approved, by } = await askApproval(request, { command: './approve.sh', timeoutMs: 300_000, log });
 */
export async function askApproval(r: ApprovalRequest, a: Approvers): Promise<ApprovalAnswer> {
  const askClient = a.approver === 'client' || (a.approver !== 'cmd' && !a.command);
  if (askClient && a.elicit) {
    try {
      const action = await a.elicit(approvalMessage(r), a.timeoutMs);
      return action === 'accept'
        ? { approved: true, by: "accepted by the client's user", who: 'client' }
        : {
            approved: false,
            by: `${action === 'decline' ? 'declined' : 'cancelled'} by the client's user`,
            who: 'client',
          };
    } catch (e) {
      return { approved: false, by: `the client did not answer the approval request: ${(e as Error).message}` };
    }
  }
  if (a.command) return runApproveCommand(a.command, r, a);
  return {
    approved: false,
    by: 'nobody to ask: the client does not take elicitation and the guard has no --approve-cmd',
  };
}

function runApproveCommand(command: string, r: ApprovalRequest, a: Approvers): Promise<ApprovalAnswer> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: ApprovalAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    // Its own process group, so that a timeout ends whatever the shell started.
    const child = spawn(command, { shell: true, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      done({ approved: false, by: `--approve-cmd gave no answer within ${a.timeoutMs} ms` });
    }, a.timeoutMs);
    child.stdout.on('data', (d: Buffer) => a.log(String(d)));
    child.stderr.on('data', (d: Buffer) => a.log(String(d)));
    child.once('error', (e) => done({ approved: false, by: `--approve-cmd could not run: ${e.message}` }));
    child.once('exit', (code, signal) =>
      done(
        code === 0
          ? { approved: true, by: 'approved by --approve-cmd', who: 'cmd' }
          : {
              approved: false,
              by: `--approve-cmd ${signal ? `was ended by ${signal}` : `exited ${code}`}`,
              who: 'cmd',
            },
      ),
    );
    // A command that does not read its stdin still decides by its exit status.
    child.stdin.on('error', () => {});
    child.stdin.end(`${JSON.stringify(r)}\n`);
  });
}
