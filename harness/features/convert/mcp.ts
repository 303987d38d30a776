/**
 * Model Context Protocol tools and oneway tools. MCP describes a tool's side
 * effects with hints (readOnlyHint, destructiveHint, idempotentHint,
 * openWorldHint); oneway declares a reversibility class, a compensation and
 * preconditions. Exporting writes the hints the class implies and carries the
 * declaration itself in `_meta` ("oneway/class", "oneway/compensating_operation",
 * "oneway/preconditions"), so it travels with the tool; importing reads `_meta`
 * when present and otherwise maps the hints conservatively.
 *
 * Pure functions: an MCP server or client can reuse them as they are.
 */
import type { ToolClass } from '../../core/scenario.ts';
import { CLASSES } from '../../core/scenario.ts';
import type { Result } from '../../core/errors.ts';

export interface McpAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A tool as MCP `tools/list` returns it. */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };
  /** The JSON Schema of the tool's structured result, when the server declares one. */
  outputSchema?: { type?: string; properties?: Record<string, unknown>; [k: string]: unknown };
  annotations?: McpAnnotations;
  _meta?: Record<string, unknown>;
}

/** What `toMcpTool` needs of a tool: a scenario `Tool` or a planner `ToolView` both fit. */
export interface McpToolSource {
  name: string;
  description: string;
  kind?: 'action' | 'approval' | 'confirmation';
  read_only: boolean;
  idempotent?: boolean;
  parameters: { type: 'object'; properties: Record<string, unknown>; required: string[]; [k: string]: unknown };
  preconditions: readonly string[];
  compensating_operation?: string | null;
  compensation_requires_approval?: boolean;
}

const META_CLASS = 'oneway/class';
export const META_COMPENSATION = 'oneway/compensating_operation';
export const META_PRECONDITIONS = 'oneway/preconditions';
export const META_APPROVAL = 'oneway/compensation_requires_approval';
export const META_KIND = 'oneway/kind';

/**
 * A oneway tool as an MCP tool: hints from the class (read_only → readOnlyHint; reversible →
 * destructiveHint false; compensable and irreversible → destructiveHint true; idempotentHint
 * where declared) and the declaration in `_meta`.
 *
 * @example
 * toMcpTool(sendEmail, 'irreversible').annotations // { readOnlyHint: false, destructiveHint: true }
 * toMcpTool(sendEmail, 'irreversible')._meta?.['oneway/class'] // 'irreversible'
 */
export function toMcpTool(tool: McpToolSource, cls: ToolClass): McpTool {
  const annotations: McpAnnotations = {
    readOnlyHint: tool.read_only,
    destructiveHint: tool.read_only ? false : cls !== 'reversible',
    ...(tool.idempotent !== undefined ? { idempotentHint: tool.idempotent } : {}),
  };
  const comp = cls === 'irreversible' || tool.read_only ? null : (tool.compensating_operation ?? null);
  return {
    name: tool.name,
    ...(tool.description.trim() ? { description: tool.description.trim() } : {}),
    inputSchema: structuredClone(tool.parameters),
    annotations,
    _meta: {
      [META_CLASS]: cls,
      [META_COMPENSATION]: comp,
      [META_PRECONDITIONS]: [...tool.preconditions],
      ...(comp && tool.compensation_requires_approval !== undefined
        ? { [META_APPROVAL]: tool.compensation_requires_approval }
        : {}),
      ...(tool.kind === 'approval' ? { [META_KIND]: 'approval' } : {}),
    },
  };
}

/** What the hints (or `_meta`) say a tool is. */
export interface McpVerdict {
  class: ToolClass;
  read_only: boolean;
  /** How the class was decided, for the reviewer. */
  basis: 'meta' | 'read_only_hint' | 'reversible_candidate' | 'open_world' | 'destructive_or_unknown';
  /** Reversible but state-changing with no compensation known: a human must name one. */
  needs_compensation: boolean;
}

/**
 * The class an MCP tool's hints imply, every hint considered. `_meta["oneway/class"]` wins
 * when present; otherwise readOnlyHint → reversible and read-only; openWorldHint true on a tool
 * that changes state → irreversible until reviewed, never a reversible candidate (the effect
 * leaves the server: `open_world`); destructiveHint false (an additive tool, idempotent or not) →
 * reversible candidate (it needs a compensating_operation: the importer looks for its
 * create/delete partner and makes it irreversible when there is none); anything else →
 * irreversible until reviewed. MCP's own default applies to a missing destructiveHint
 * (destructive); a missing openWorldHint is not read as true (it would rule out every candidate).
 *
 * @example
 * classFromHints({ name: 'x', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }).class // 'reversible'
 */
export function classFromHints(tool: McpTool): McpVerdict {
  const meta = tool._meta?.[META_CLASS];
  const a = tool.annotations ?? {};
  const readOnly = a.readOnlyHint === true;
  if (typeof meta === 'string' && (CLASSES as readonly string[]).includes(meta)) {
    const cls = meta as ToolClass;
    const comp = tool._meta?.[META_COMPENSATION];
    return {
      class: cls,
      read_only: readOnly,
      basis: 'meta',
      needs_compensation: !readOnly && cls !== 'irreversible' && (typeof comp !== 'string' || comp === ''),
    };
  }
  if (readOnly) return { class: 'reversible', read_only: true, basis: 'read_only_hint', needs_compensation: false };
  if (a.openWorldHint === true)
    return { class: 'irreversible', read_only: false, basis: 'open_world', needs_compensation: false };
  if (a.destructiveHint === false)
    return { class: 'reversible', read_only: false, basis: 'reversible_candidate', needs_compensation: true };
  return { class: 'irreversible', read_only: false, basis: 'destructive_or_unknown', needs_compensation: false };
}

/**
 * The tools of an MCP `tools/list` result: `{tools: [...]}`, the JSON-RPC envelope
 * `{result: {tools: [...]}}`, or a bare list. Returns a message for anything else.
 *
 * @example
 * toolsListOf({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'get_issue', inputSchema: { type: 'object' } }] } })
 */
export function toolsListOf(
  doc: unknown,
): Result<{ tools: McpTool[]; skipped: string[] }, { message: string; hint: string }> {
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  let list: unknown;
  if (Array.isArray(doc)) list = doc;
  else if (isObj(doc) && Array.isArray(doc.tools)) list = doc.tools;
  else if (isObj(doc) && isObj(doc.result) && Array.isArray(doc.result.tools)) list = doc.result.tools;
  else if (isObj(doc) && isObj(doc.error)) {
    return {
      ok: false,
      message: `the file holds a JSON-RPC error: ${String(doc.error.message ?? JSON.stringify(doc.error))}`,
      hint: 'save the reply of a successful tools/list request',
    };
  } else {
    return {
      ok: false,
      message: 'no tools list found',
      hint: 'expected an MCP tools/list result: {"tools": [...]}, or the JSON-RPC reply {"result": {"tools": [...]}}',
    };
  }
  const tools: McpTool[] = [];
  const skipped: string[] = [];
  (list as unknown[]).forEach((t, i) => {
    if (!isObj(t) || typeof t.name !== 'string' || t.name === '') {
      skipped.push(`tools[${i}] has no name`);
      return;
    }
    const schema = isObj(t.inputSchema) ? t.inputSchema : { type: 'object' };
    tools.push({
      name: t.name,
      ...(typeof t.title === 'string' ? { title: t.title } : {}),
      ...(typeof t.description === 'string' ? { description: t.description } : {}),
      inputSchema: { ...schema, type: 'object' },
      ...(isObj(t.outputSchema) ? { outputSchema: t.outputSchema } : {}),
      ...(isObj(t.annotations) ? { annotations: t.annotations as McpAnnotations } : {}),
      ...(isObj(t._meta) ? { _meta: t._meta } : {}),
    });
  });
  return { ok: true, value: { tools, skipped } };
}
