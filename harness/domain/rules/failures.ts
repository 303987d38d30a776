/**
 * Whether a failed call may have taken effect. MCP carries no HTTP status: a real server's
 * failure is a tool result with `isError`, a JSON-RPC error, or no reply at all (a timeout, a
 * lost connection, a reply that breaks the JSON-RPC framing). So a failure is *ambiguous* unless
 * it is known to be definite, and the guard errs toward refusing a blind repeat, never toward
 * charging twice. Known definite:
 *
 * - a JSON-RPC error saying the request itself was refused (parse error, invalid request, unknown
 *   method, invalid params: -32700, -32600, -32601, -32602), or a code the tool declares;
 * - an HTTP status in 4xx other than 408, 409, 425 and 429 (the request was refused as it was;
 *   those four may have been, or may yet be, carried out), where one is known: the sandbox's
 *   reply, or `_meta["oneway/http_status"]` as `oneway serve` sends it;
 * - an error whose text matches a pattern the tool declares (`definite_failures.errors`).
 *
 * A failure with no reply is never definite, whatever the declarations say. The sandbox (a
 * fault's default `ambiguous`) and `oneway guard` (what a server sent) both ask this, so
 * `eval --guard` and the proxy decide the same on the same calls.
 *
 * @example
 * isAmbiguousFailure({ kind: 'reply', http_status: null, text: 'upstream 503' }, tool) // true
 * isAmbiguousFailure({ kind: 'reply', http_status: 404, text: 'no such customer' }, tool) // false
 */
import { linearRegExp } from '../../util/linear-regexp.ts';

/** What a tool declares of its definite failures (`definite_failures:` in a scenario or tools file). */
export interface DefiniteFailures {
  /** JSON-RPC error codes that mean nothing was done. */
  codes?: readonly number[] | undefined;
  /** Patterns (regular expressions, run in linear time) on the error text that mean nothing was done. */
  errors?: readonly string[] | undefined;
}

/** A failed call as the caller saw it. */
export type Failure =
  /** A reply that says it failed: a tool result with `isError`, or an HTTP error reply (status when known). */
  | { kind: 'reply'; http_status: number | null; text: string }
  /** A JSON-RPC error response. */
  | { kind: 'rpc_error'; code: number; text: string }
  /** No reply was read: a timeout, a lost connection, a reply that broke the framing. */
  | { kind: 'no_reply'; text: string };

/** JSON-RPC errors that say the request itself was refused: nothing was done. */
const REFUSED_REQUEST: ReadonlySet<number> = new Set([-32700, -32600, -32601, -32602]);

/** 4xx statuses after which the request may have been, or may yet be, carried out. */
const MAYBE_CARRIED_OUT: ReadonlySet<number> = new Set([408, 409, 425, 429]);

/** Whether an HTTP status says, by itself, that nothing was done. */
const isDefiniteStatus = (status: number): boolean => status >= 400 && status < 500 && !MAYBE_CARRIED_OUT.has(status);

const compiled = new Map<string, { test(s: string): boolean }>();
function matches(pattern: string, text: string): boolean {
  let re = compiled.get(pattern);
  if (!re) {
    re = linearRegExp(pattern);
    compiled.set(pattern, re);
  }
  return re.test(text);
}

/** Whether the failure may have taken effect (see the module comment). */
export function isAmbiguousFailure(f: Failure, declared: DefiniteFailures | undefined): boolean {
  if (f.kind === 'no_reply') return true;
  if (f.kind === 'rpc_error' && (REFUSED_REQUEST.has(f.code) || declared?.codes?.includes(f.code))) return false;
  if (f.kind === 'reply' && f.http_status !== null && isDefiniteStatus(f.http_status)) return false;
  return !(declared?.errors ?? []).some((p) => matches(p, f.text));
}
