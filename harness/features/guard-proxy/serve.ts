/**
 * Serving the guard to MCP clients: over stdio (one session: the client that
 * started the guard), or over Streamable HTTP (`--listen`), one session per
 * client, on the loopback interface with `oneway serve`'s checks (the Host
 * must name the endpoint, an Origin must be a loopback one, a body is at most
 * MAX_MESSAGE_BYTES; harness/features/mcp/http.ts). At most DEFAULT_MAX_SESSIONS
 * sessions are open at once; when one more is needed, an idle one (no call
 * pending) is closed first (its client gets "Session not found" and starts a new one).
 */
import type { Readable, Writable } from 'node:stream';
import { MAX_MESSAGE_BYTES, startHttpHost, type HttpHost } from '../mcp/http.ts';
import { cappedStdio } from '../mcp/stdio-transport.ts';
import type { GuardProxy } from './proxy.ts';

/**
 * Serves one session on stdin/stdout until the client closes stdin; every call it made is journaled
 * by the time this returns.
 *
 * @example
 * await guardStdio(proxy); // the client spawned this process
 */
export async function guardStdio(
  proxy: GuardProxy,
  io: { stdin: Readable; stdout: Writable } = { stdin: process.stdin, stdout: process.stdout },
): Promise<void> {
  const session = proxy.session();
  const { transport, stdin } = cappedStdio(
    io,
    MAX_MESSAGE_BYTES,
    (bytes) => `Request too large: a line over ${MAX_MESSAGE_BYTES} bytes (${bytes} so far) was dropped`,
  );
  io.stdout.on('error', () => {}); // a client that left mid-answer: the call is journaled all the same
  const gone = new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
  });
  await session.server.connect(transport);
  await gone;
  await proxy.settle();
  await session.server.close();
}

/**
 * Serves sessions over Streamable HTTP on 127.0.0.1 until `close()`.
 *
 * @example
 * const host = await guardHttp(proxy, 8377); // http://127.0.0.1:8377/mcp
 */
export async function guardHttp(proxy: GuardProxy, port: number, onError?: (e: Error) => void): Promise<HttpHost> {
  return startHttpHost({
    port,
    allowThroughSeal: false,
    // A tool call may ask the client's user for approval (elicitation) before it is answered.
    streamReplies: true,
    ...(onError ? { onError } : {}),
    open() {
      const session = proxy.session();
      // A client that left without ending its session leaves it open: idle, it gives its place up.
      return { server: session.server, onClose() {}, onAbortedCall() {}, ended: () => session.idle() };
    },
  });
}
