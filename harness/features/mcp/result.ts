/**
 * What an MCP client receives for a tool call: the observation a built-in
 * planner would get, as a `CallToolResult`. Faults, guard refusals and rejected
 * calls are tool errors (`isError: true`), so a client handles them like any
 * failed tool; the status, HTTP status and step are in `_meta` as well.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Observation } from '../../core/planner.ts';

const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * @example
 * toToolResult({ step: 1, tool: 'send', args: {}, status: 'error', http_status: 504, error: 'gateway timeout' })
 * // { isError: true, content: [{ type: 'text', text: '{"status":"error","http_status":504,"error":"gateway timeout"}' }], _meta: {...} }
 */
export function toToolResult(o: Observation): CallToolResult {
  // A rejected call never ran: no step, and the reason as the text (as for any refusal).
  if (o.status === 'rejected') return errorResult(o.reason ?? 'rejected');
  const meta = {
    'oneway/status': o.status,
    'oneway/step': o.step,
    ...(o.http_status !== undefined ? { 'oneway/http_status': o.http_status } : {}),
  };
  if (o.status === 'ok') {
    const result = o.result ?? {};
    return {
      content: [{ type: 'text', text: JSON.stringify(result) }],
      ...(isPlainObject(result) ? { structuredContent: result } : {}),
      _meta: meta,
    };
  }
  const body =
    o.status === 'error'
      ? { status: 'error', http_status: o.http_status, error: o.error }
      : { status: 'blocked', reason: o.reason, missing: o.missing ?? [] };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], _meta: meta };
}

/** A refusal: a call the run rejected (unknown tool, arguments that violate the schema), or one that never reached it (run over). */
export function errorResult(text: string, meta: Record<string, unknown> = {}): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }], _meta: { 'oneway/status': 'rejected', ...meta } };
}
