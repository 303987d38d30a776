/**
 * Framework approval steps, answered by the scenario's scripted human.
 *
 * Agent frameworks hold a tool call back for a human's sign-off (the OpenAI Agents SDK's
 * `needsApproval` and its interruption/`state.approve` flow; the AI SDK's `needsApproval` and
 * tool-approval requests). Two adapters connect that step to oneway:
 *
 * - `needsApproval(tool)`: whether a tool, as `oneway serve` lists it, should wait for a sign-off,
 *   from its class: `_meta["oneway/class"]` when the client kept `_meta`, else the MCP annotations
 *   (which cannot tell compensable from irreversible: `destructiveHint` covers both).
 * - `askHuman(client, tool, args)`: asks the scenario's human through the served
 *   `oneway_request_approval` tool. oneway runs it as a call of the scenario's approval tool
 *   (answered by `approvals:`, recorded, establishing the gate fact as any approval does); when the
 *   human does not sign off, the held-back call is recorded as a blocked attempt (`blocked_reason`:
 *   "denied by the human (framework approval)"), which premature and attempt scores count.
 */
import { APPROVAL_TOOL } from './tools.ts';

/** What a framework keeps of an MCP tool: its name, annotations and (some clients drop it) `_meta`. */
export interface ServedToolLike {
  name: string;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; [k: string]: unknown } | undefined;
  _meta?: Record<string, unknown> | undefined;
}

export type ApprovalClass = 'read_only' | 'reversible' | 'compensable' | 'irreversible';

export interface NeedsApprovalOptions {
  /** The classes that wait for a sign-off (default: compensable and irreversible). */
  classes?: readonly ApprovalClass[];
}

const DEFAULT_CLASSES: readonly ApprovalClass[] = ['compensable', 'irreversible'];

/**
 * The class a served tool declares: `_meta["oneway/class"]` (with `oneway/read_only`), else what the
 * annotations allow: readOnlyHint → read_only; destructiveHint false → reversible; destructiveHint
 * true, or no hint (MCP's default is destructive) → irreversible (it may be compensable: the
 * annotations cannot say).
 *
 * @example
 * servedClass({ name: 'send', _meta: { 'oneway/class': 'irreversible' } }) // 'irreversible'
 * servedClass({ name: 'create', annotations: { destructiveHint: true } }) // 'irreversible' (maybe compensable)
 */
export function servedClass(tool: ServedToolLike): ApprovalClass {
  const meta = tool._meta ?? {};
  const cls = meta['oneway/class'];
  if (meta['oneway/read_only'] === true) return 'read_only';
  if (cls === 'reversible' || cls === 'compensable' || cls === 'irreversible') return cls;
  const a = tool.annotations ?? {};
  if (a.readOnlyHint === true) return 'read_only';
  if (a.destructiveHint === false) return 'reversible';
  return 'irreversible';
}

/**
 * Whether a framework should hold `tool` back for a human's sign-off: irreversible and compensable
 * tools do, reversible and read-only ones do not (`opts.classes` changes which). oneway's own tools
 * (`finish`, the approval tool) never do.
 *
 * @example
 * needsApproval({ name: 'send_email', _meta: { 'oneway/class': 'irreversible' } }) // true
 * needsApproval({ name: 'add_note', annotations: { destructiveHint: false } }) // false
 */
export function needsApproval(tool: ServedToolLike, opts: NeedsApprovalOptions = {}): boolean {
  const meta = tool._meta ?? {};
  if (meta['oneway/finish'] === true || meta['oneway/approval_step'] === true) return false;
  return (opts.classes ?? DEFAULT_CLASSES).includes(servedClass(tool));
}

/** The part of an MCP client `askHuman` uses (the SDK's `Client` has it). */
export interface ToolCaller {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}

/** What the scripted human answered. */
export interface HumanAnswer {
  approved: boolean;
  /** The tool result's text (why, or an error). */
  text: string;
}

/**
 * Asks the scenario's human to sign off `tool(args)` through the served approval tool.
 *
 * @example
 * const { approved } = await askHuman(client, 'send_invoice_email', { to: 'ap@northwind-traders.example', ... });
 * if (approved) state.approve(item); else state.reject(item);
 */
export async function askHuman(
  client: ToolCaller,
  tool: string,
  args: Record<string, unknown> = {},
  opts: { summary?: string; approvalTool?: string } = {},
): Promise<HumanAnswer> {
  const result = (await client.callTool({
    name: opts.approvalTool ?? APPROVAL_TOOL,
    arguments: { tool, arguments: args, ...(opts.summary ? { summary: opts.summary } : {}) },
  })) as { isError?: boolean; structuredContent?: { approved?: unknown }; content?: { type: string; text?: string }[] };
  const text = result.content?.find((c) => c.type === 'text')?.text ?? '';
  return { approved: result.isError !== true && result.structuredContent?.approved === true, text };
}
