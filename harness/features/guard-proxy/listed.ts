/**
 * The server's tools as the guard lists them to its client: every tool the
 * server lists, passed through, with what the declarations say of it where
 * a client can read it. A declared tool's annotations follow its class (the
 * mapping `oneway export` writes: read_only → readOnlyHint; reversible →
 * destructiveHint false; compensable and irreversible → destructiveHint true)
 * and its `_meta` carries the class, compensation and preconditions under the
 * same `oneway/...` keys; every tool's `_meta["oneway/policy"]` says what the
 * guard does with a call of it, and an undeclared one says so
 * (`oneway/undeclared`: refused unless the policy says otherwise).
 *
 * A server's tool is matched to its declaration by name, as `oneway import`
 * named it (names outside `[A-Za-z0-9_-]{1,64}` are renamed the same way).
 */
import type { Tool as ListedTool } from '@modelcontextprotocol/sdk/types.js';
import { ruleFor } from '../../engine/guard/decide.ts';
import type { Policy } from '../../engine/guard/policy.ts';
import { onewayNames } from '../convert/import-mcp.ts';
import { toMcpTool } from '../convert/mcp.ts';
import { factPreconditions } from '../../core/scenario.ts';
import type { KnownWorld } from './known.ts';

const META_POLICY = 'oneway/policy';
const META_UNDECLARED = 'oneway/undeclared';

export interface GuardedList {
  tools: ListedTool[];
  /** The server's name of each tool → its declared name (only for tools whose names differ). */
  renamed: Map<string, string>;
  /** Tools the server lists that the file does not declare. */
  undeclared: string[];
  /** Declared tools the server does not list. */
  unlisted: string[];
}

/**
 * Decorates a server's tools list (see the module comment).
 *
 * @example
 * guardedTools(await upstream.listTools(), known, policy).tools[0]._meta // { 'oneway/class': 'reversible', ..., 'oneway/policy': 'auto' }
 */
export function guardedTools(listed: readonly ListedTool[], known: KnownWorld, policy: Policy): GuardedList {
  const names = onewayNames(listed.map((t) => t.name));
  const renamed = new Map<string, string>();
  const undeclared: string[] = [];
  const tools = listed.map((t, i): ListedTool => {
    const name = names[i] as string;
    if (name !== t.name) renamed.set(t.name, name);
    const decl = known.declared(name);
    const cls = known.classOf(name);
    const rule = ruleFor(cls, policy);
    if (!decl || cls === null) {
      undeclared.push(t.name);
      return { ...t, _meta: { ...t._meta, [META_UNDECLARED]: true, [META_POLICY]: rule } };
    }
    const mapped = toMcpTool({ ...decl, preconditions: factPreconditions(decl) }, cls);
    return {
      ...t,
      annotations: { ...t.annotations, ...mapped.annotations },
      _meta: { ...t._meta, ...mapped._meta, [META_POLICY]: rule },
    };
  });
  const served = new Set(names);
  const unlisted = known.scenario.tools.map((t) => t.name).filter((n) => !served.has(n));
  return { tools, renamed, undeclared, unlisted };
}
