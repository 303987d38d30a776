/**
 * The real MCP server behind the guard, through the official SDK client: a
 * command the guard starts over stdio (with the guard's environment, so the
 * server gets its keys), a Streamable HTTP URL, or (tests, in-process setups)
 * a transport to connect. The connection is made at start and again on the
 * next call after it was lost (a server that crashed is started again).
 *
 * `call` never throws: a reply, a tool error, or a failure as the caller saw it
 * (domain/rules/failures.ts says whether it may have taken effect): a JSON-RPC
 * error with its code, or no reply (no reply in time, the connection lost, the
 * server crashed, a reply that is not a tool result). A reply that breaks the
 * JSON-RPC framing (a line that is not JSON, a message that is not JSON-RPC)
 * cannot be matched to its call, so it ends every call in flight on that
 * connection at once, as a failure with no reply: never a wait until the timeout.
 * Over Streamable HTTP, a call's reply comes on the response to its POST: a
 * response stream that ends (or breaks off) without the reply, and without an
 * event id the SDK could resume from, ends that call at once as well.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  ErrorCode,
  McpError,
  type CallToolResult,
  type ServerCapabilities,
  type Tool as ListedTool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Failure } from '../../domain/rules/failures.ts';
import { packageVersion } from '../../util/package-root.ts';

/** Where the server is. */
export type UpstreamTarget =
  | { command: string; args: readonly string[]; cwd?: string; env?: Record<string, string> }
  | { url: string }
  | { name: string; transport(): Transport };

/** A call's fate at the server. */
export type Forwarded = { ok: true; result: CallToolResult } | { ok: false; failure: Failure };

/** Why a call in flight was ended before its reply: the connection's framing broke. */
class FramingBroken extends Error {}

/** Why a call over Streamable HTTP was ended before its reply: its response stream ended without it. */
class ReplyStreamEnded extends Error {}

/**
 * `fetch` for the Streamable HTTP transport that watches the SSE response to each POST of one
 * request: when the stream ends or breaks off without a reply to that request and without an event
 * id (from which the SDK would resume the stream and get the reply), `lost(id, why)` is told. The
 * SDK reads the same events; this reads a copy (a tee), so the SDK sees the stream unchanged.
 */
function watchReplyStreams(lost: (id: string | number, why: string) => void): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    let id: string | number | undefined;
    try {
      const sent = JSON.parse(typeof init?.body === 'string' ? init.body : 'null') as {
        id?: unknown;
        method?: unknown;
      };
      if (typeof sent?.method === 'string' && (typeof sent.id === 'number' || typeof sent.id === 'string'))
        id = sent.id;
    } catch {
      id = undefined;
    }
    const type = response.headers.get('content-type') ?? '';
    if (init?.method !== 'POST' || id === undefined || !response.body || !/^text\/event-stream\b/i.test(type))
      return response;
    const [forSdk, forUs] = response.body.tee();
    void readReplyStream(forUs, id).then((why) => {
      if (why !== null) lost(id, why);
    });
    return new Response(forSdk, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * Reads an SSE stream to its end: null when it carried the reply to request `id` or an event id
 * (resumable), else why the reply is lost.
 */
async function readReplyStream(stream: ReadableStream<Uint8Array>, id: string | number): Promise<string | null> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let pending = '';
  let data: string[] = [];
  let settled = false;
  const line = (text: string) => {
    if (text === '') {
      if (data.length > 0) {
        try {
          const m = JSON.parse(data.join('\n')) as { id?: unknown; result?: unknown; error?: unknown };
          if (m !== null && typeof m === 'object' && m.id === id && ('result' in m || 'error' in m)) settled = true;
        } catch {
          // Not JSON: the SDK reports the broken framing, which ends the call.
        }
      }
      data = [];
    } else if (text.startsWith('data:')) data.push(text.slice(text.startsWith('data: ') ? 6 : 5));
    else if (/^id:\s*\S/.test(text)) settled = true;
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      pending += value;
      const lines = pending.split(/\r\n|\r|\n/);
      pending = lines.pop() ?? '';
      for (const l of lines) line(l);
      if (settled) {
        await reader.cancel().catch(() => {});
        return null;
      }
    }
    line(pending);
    line('');
    return settled ? null : 'the server ended the reply stream before it replied';
  } catch (e) {
    return settled ? null : `the reply stream broke off before the server replied (${shortError(e)})`;
  }
}

/**
 * Whether an error the SDK reports on a connection is a message it could not read: a line that is
 * not JSON (SyntaxError), or JSON that is not a JSON-RPC message (a zod error), or a message of no
 * known type.
 */
function isFramingError(e: unknown): e is Error {
  if (!(e instanceof Error)) return false;
  return e instanceof SyntaxError || e.name === 'ZodError' || e.message.startsWith('Unknown message type');
}

/** The command line or URL, for messages and the journal. */
function describeTarget(t: UpstreamTarget): string {
  if ('url' in t) return t.url;
  if ('transport' in t) return t.name;
  return [t.command, ...t.args].map((a) => (/[\s"'\\]/.test(a) ? JSON.stringify(a) : a)).join(' ');
}

export class Upstream {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private lost: string | undefined;
  /** The calls in flight on the current connection: a reply that breaks the framing ends them all. */
  private readonly flying = new Map<Client, Set<AbortController>>();
  /** Over Streamable HTTP: the call whose request is being sent now, and each call by its request id. */
  private sending: AbortController | undefined;
  private readonly byRequestId = new Map<string | number, AbortController>();
  private readonly requestIdOf = new Map<AbortController, string | number>();
  readonly where: string;

  constructor(
    private readonly target: UpstreamTarget,
    private readonly log: (message: string) => void = () => {},
  ) {
    this.where = describeTarget(target);
  }

  private transport(): Transport {
    const t = this.target;
    if ('transport' in t) return t.transport();
    if ('url' in t) {
      const transport = new StreamableHTTPClientTransport(new URL(t.url), {
        fetch: watchReplyStreams((id, why) => {
          const call = this.byRequestId.get(id);
          if (!call) return;
          this.log(`a reply from the server (${this.where}) is lost: ${why}`);
          call.abort(new ReplyStreamEnded(why));
        }),
      });
      // The SDK sends a request synchronously from client.request: that is when its id is known.
      const send = transport.send.bind(transport);
      transport.send = (message, options) => {
        const call = this.sending;
        if (call && 'method' in message && 'id' in message) {
          this.sending = undefined;
          this.byRequestId.set(message.id, call);
          this.requestIdOf.set(call, message.id);
        }
        return send(message, options);
      };
      return transport;
    }
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(t.env ?? process.env)) if (v !== undefined) env[k] = v;
    // The server's own diagnostics go where the guard's go (stderr): never into the protocol.
    return new StdioClientTransport({
      command: t.command,
      args: [...t.args],
      env,
      stderr: 'inherit',
      ...(t.cwd ? { cwd: t.cwd } : {}),
    });
  }

  /** The connected client, connecting (again) when there is none. Throws when the server cannot be reached. */
  connect(timeoutMs = 60_000): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    if (this.connecting) return this.connecting;
    const client = new Client({ name: 'oneway-guard', version: packageVersion() });
    const attempt = (async () => {
      try {
        await client.connect(this.transport(), { timeout: timeoutMs });
      } catch (e) {
        await client.close().catch(() => {});
        throw new Error(`cannot connect to the MCP server (${this.where}): ${(e as Error).message}`, { cause: e });
      }
      if (this.lost) this.log(`reconnected to the server (${this.where}) after ${this.lost}`);
      this.lost = undefined;
      client.onerror = (e) => {
        if (!isFramingError(e)) return;
        const text = shortError(e);
        this.log(`the server (${this.where}) sent a reply that breaks the JSON-RPC framing: ${text}`);
        for (const c of this.flying.get(client) ?? []) c.abort(new FramingBroken(text));
      };
      client.onclose = () => {
        if (this.client !== client) return;
        this.client = undefined;
        this.lost = 'it closed the connection';
        this.log(`the server (${this.where}) closed the connection; it is reconnected on the next call`);
      };
      this.client = client;
      return client;
    })();
    this.connecting = attempt;
    void attempt
      .finally(() => {
        if (this.connecting === attempt) this.connecting = undefined;
      })
      .catch(() => {});
    return attempt;
  }

  /** What the server said of itself when the connection was made (null before). */
  get info(): { capabilities: ServerCapabilities; instructions?: string } | null {
    if (!this.client) return null;
    const instructions = this.client.getInstructions();
    return {
      capabilities: this.client.getServerCapabilities() ?? {},
      ...(instructions ? { instructions } : {}),
    };
  }

  /** Every tool the server lists, every page. */
  async listTools(): Promise<ListedTool[]> {
    const client = await this.connect();
    const out: ListedTool[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 1000; pages++) {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      out.push(...page.tools);
      cursor = page.nextCursor;
      if (cursor === undefined || cursor === '') return out;
    }
    throw new Error(`the MCP server (${this.where}) kept returning a nextCursor after 1000 pages`);
  }

  /** Sends one tool call on a connection already made (`connect`), and says what became of it. */
  async call(client: Client, name: string, args: Record<string, unknown>, timeoutMs: number): Promise<Forwarded> {
    const abort = new AbortController();
    let flying = this.flying.get(client);
    if (!flying) this.flying.set(client, (flying = new Set()));
    flying.add(abort);
    const noReply = (text: string): Forwarded => ({ ok: false, failure: { kind: 'no_reply', text } });
    try {
      this.sending = abort;
      const replied = client.request(
        { method: 'tools/call', params: { name, arguments: args } },
        CallToolResultSchema,
        { timeout: timeoutMs, signal: abort.signal },
      );
      this.sending = undefined;
      const result = await replied;
      return { ok: true, result };
    } catch (e) {
      const reason: unknown = abort.signal.reason;
      if (abort.signal.aborted && reason instanceof FramingBroken)
        return noReply(`the server sent a reply that breaks the JSON-RPC framing (${reason.message})`);
      if (abort.signal.aborted && reason instanceof ReplyStreamEnded) return noReply(reason.message);
      if (e instanceof McpError) {
        if (e.code === ErrorCode.RequestTimeout) return noReply(`no reply within ${timeoutMs} ms`);
        if (e.code === ErrorCode.ConnectionClosed)
          return noReply('the server closed the connection before it replied (it may have crashed)');
        return {
          ok: false,
          failure: { kind: 'rpc_error', code: e.code, text: `the server answered with an error: ${e.message}` },
        };
      }
      return noReply(`the server's reply is not a tool result: ${shortError(e)}`);
    } finally {
      this.sending = undefined;
      const id = this.requestIdOf.get(abort);
      if (id !== undefined) this.byRequestId.delete(id);
      this.requestIdOf.delete(abort);
      flying.delete(abort);
      if (flying.size === 0) this.flying.delete(client);
    }
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    await c?.close().catch(() => {});
  }
}

function shortError(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return text.replace(/\s+/g, ' ').slice(0, 300);
}
