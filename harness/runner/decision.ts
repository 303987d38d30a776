/**
 * Checks a planner's decision before anything runs. A malformed decision ends
 * only that planner's run, with a message saying what was wrong.
 */
import type { Call, Decision } from '../planner/types.ts';

export const MAX_ARGS_BYTES = 256 * 1024;
export const MAX_BATCH = 64;

export type Checked = { ok: true; decision: Decision; calls: Call[] } | { ok: false; message: string };

function describe(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  return typeof x === 'object' ? `an object with keys ${Object.keys(x as object).join(', ') || '(none)'}` : `${typeof x} ${String(x).slice(0, 40)}`;
}

function checkCall(x: unknown, tools: ReadonlySet<string>, where: string): { ok: true; call: Call } | { ok: false; message: string } {
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return { ok: false, message: `${where} must be {tool, args}, got ${describe(x)}` };
  const { tool, args } = x as { tool?: unknown; args?: unknown };
  if (typeof tool !== 'string') return { ok: false, message: `${where}.tool must be a string, got ${describe(tool)}` };
  if (!tools.has(tool)) return { ok: false, message: `${where} names unknown tool "${tool.slice(0, 80)}" (declared: ${[...tools].join(', ')})` };
  const a = args ?? {};
  if (typeof a !== 'object' || a === null || Array.isArray(a)) return { ok: false, message: `${where}.args must be an object, got ${describe(a)}` };
  let json: string;
  try {
    json = JSON.stringify(a);
  } catch (e) {
    return { ok: false, message: `${where}.args cannot be serialised: ${(e as Error).message}` };
  }
  if (json.length > MAX_ARGS_BYTES) return { ok: false, message: `${where}.args is ${json.length} bytes; the limit is ${MAX_ARGS_BYTES}` };
  return { ok: true, call: { tool, args: JSON.parse(json) as Record<string, unknown> } };
}

export function checkDecision(x: unknown, tools: ReadonlySet<string>): Checked {
  if (x === null || typeof x !== 'object') return { ok: false, message: `a decision must be an object with "type", got ${describe(x)}` };
  const d = x as { type?: unknown; call?: unknown; calls?: unknown; reason?: unknown };
  if (d.type === 'finish') return { ok: true, decision: { type: 'finish', ...(typeof d.reason === 'string' ? { reason: d.reason } : {}) }, calls: [] };
  if (d.type === 'call') {
    const c = checkCall(d.call, tools, 'decision.call');
    return c.ok ? { ok: true, decision: { type: 'call', call: c.call }, calls: [c.call] } : c;
  }
  if (d.type === 'batch') {
    if (!Array.isArray(d.calls) || d.calls.length === 0) return { ok: false, message: 'decision.calls must be a non-empty array' };
    if (d.calls.length > MAX_BATCH) return { ok: false, message: `a batch holds at most ${MAX_BATCH} calls, got ${d.calls.length}` };
    const out: Call[] = [];
    for (const [i, raw] of d.calls.entries()) {
      const c = checkCall(raw, tools, `decision.calls[${i}]`);
      if (!c.ok) return c;
      out.push(c.call);
    }
    return { ok: true, decision: { type: 'batch', calls: out }, calls: out };
  }
  return { ok: false, message: `decision.type must be "call", "batch" or "finish", got ${describe(d.type)}` };
}
