/**
 * The stdio transport `serve` and `guard` give their clients: the SDK's, over input whose lines are
 * capped (line-cap.ts), answering a line over the cap with a JSON-RPC error (id null) so the client
 * hears why its message was dropped.
 *
 * @example
 * const { transport, stdin } = cappedStdio(io, MAX_MESSAGE_BYTES, (n) => `Request too large: ${n} bytes`);
 */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { capLines } from './line-cap.ts';

export function cappedStdio(
  io: { stdin: Readable; stdout: Writable },
  maxBytes: number,
  tooLarge: (bytes: number) => string,
): { transport: StdioServerTransport; stdin: Readable } {
  const stdin = capLines(io.stdin, maxBytes, (bytes) => {
    const reply = { jsonrpc: '2.0', id: null, error: { code: ErrorCode.InvalidRequest, message: tooLarge(bytes) } };
    void transport.send(reply as unknown as JSONRPCMessage).catch(() => {});
  });
  const transport = new StdioServerTransport(stdin, io.stdout);
  return { transport, stdin };
}
