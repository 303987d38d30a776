/**
 * The MCP endpoint over Streamable HTTP, on a loopback port: one transport and
 * one MCP `Server` per session, created by the caller's `open()`.
 *
 * Only 127.0.0.1 is bound. Before any session work, the Host header must name
 * this endpoint (DNS rebinding) and an Origin header, when a browser sends one,
 * must be a loopback origin (as the MCP spec asks: a page elsewhere cannot
 * drive a session), both else 403; a POST must be JSON (415), and at most
 * `maxSessions` sessions are open at once (503 beyond). A session whose client
 * does not finish the handshake (`initialize`, then the `initialized`
 * notification) within `handshakeMs` is dropped, so clients that never finish
 * cannot hold every place. A body over
 * MAX_MESSAGE_BYTES is answered with a JSON-RPC error and 413.
 * A client that drops its connection while a `tools/call` is unanswered is
 * reported through `onAbortedCall`, so the run can end instead of waiting.
 *
 * A client that leaves between requests is seen only through a connection it
 * holds open. With `leftAfterMs`, the host takes each session's standalone GET
 * stream (the SDK's clients open it once the handshake is done) and watches
 * it: when the stream closes and no request of that session follows within
 * `leftAfterMs` (room for a client that reconnects it), the client has left:
 * `onLeft`, then the session is closed. Idle keep-alive sockets say nothing
 * (either side closes them after a few idle seconds), so nothing else counts.
 * Without `leftAfterMs` the GET stream is declined (405, which the spec allows):
 * the server sends no notifications, and the stream would only hold a
 * connection open.
 *
 * The seal intercepts outgoing requests of this process (fetch, node:http).
 * The SDK's server side makes none, and clients normally live in another
 * process; the endpoint's origin is still allowed through the seal, so a
 * client in this process reaches it. (MSW clones every response it lets
 * through, and the unread clone makes `response.body.cancel()` wait forever,
 * which the SDK's client does on a 202: keep SDK clients in another process.)
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { seal } from '../../engine/sandbox/seal.ts';

/** What the caller attaches to a new session. */
interface SessionBinding {
  server: Server;
  /** The session ended: the client deleted it, or the host is closing. */
  onClose(): void;
  /** The client dropped its connection while a tool call was unanswered. */
  onAbortedCall(): void;
  /** Whether the session has nothing more to do (its run is recorded): it is closed when its place is needed. */
  ended?(): boolean;
  /**
   * The client left without ending the session (`leftAfterMs`: its GET stream closed and nothing
   * followed); the host closes the session right after (`onClose`).
   */
  onLeft?(): void;
}

export interface HttpHostOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The endpoint's path (default `/mcp`); a random one keeps other local processes out. */
  path?: string;
  /**
   * Called on each `initialize` without a session that passed the checks: a binding, or why the
   * session is refused. The session exists once the transport accepts the initialize; a binding
   * whose initialize is refused is closed again (`onClose`).
   */
  open(): SessionBinding | { refuse: string };
  /** Sessions open (or opening) at once; an initialize beyond gets 503 (default DEFAULT_MAX_SESSIONS). */
  maxSessions?: number;
  /** How long a new session has to send `notifications/initialized` before it is dropped (default HANDSHAKE_MS). */
  handshakeMs?: number;
  onError?(e: Error): void;
  /**
   * Let this process's own requests to the endpoint through the seal (default true). Off for hosts
   * whose clients are always child processes: an allowed origin stays allowed after the host closes.
   */
  allowThroughSeal?: boolean;
  /**
   * Answer a POST as an SSE stream rather than one JSON body (default false), so that the server
   * can send the client requests of its own while it answers (elicitation, for `oneway guard`).
   */
  streamReplies?: boolean;
  /**
   * Take each session's standalone GET stream and, when it closes and the session sends nothing
   * more for this many ms, treat the client as gone (`onLeft`). Undefined: GET is declined (405).
   */
  leftAfterMs?: number;
}

export interface HttpHost {
  /** e.g. `http://127.0.0.1:41234/mcp` */
  readonly url: string;
  /** Sessions open now. */
  readonly sessions: number;
  /** Ends every session (each binding's `onClose`), then stops listening. */
  close(): Promise<void>;
}

/** The largest JSON-RPC message taken, over HTTP (a request body) and over stdio (a line). */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/** A body is read (and dropped) past the limit up to this much, so that the client reads the 413; past it the connection is cut. */
const MAX_DRAIN_BYTES = 8 * MAX_MESSAGE_BYTES;
/** Concurrent sessions by default. */
export const DEFAULT_MAX_SESSIONS = 16;
/** How long a client has, after its `initialize` is answered, to send `notifications/initialized`. */
const HANDSHAKE_MS = 5_000;
/**
 * How long a session whose GET stream closed waits for the client to reconnect it (or send
 * anything) before the client counts as gone: above the SDK client's first reconnection delay (1 s).
 */
export const LEFT_AFTER_MS = 2000;
/** Hosts an Origin may name: a page served from this machine. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether a browser's Origin header is one of this machine's (http or https, any port). */
export function loopbackOrigin(origin: string): boolean {
  try {
    const u = new URL(origin);
    return (
      (u.protocol === 'http:' || u.protocol === 'https:') &&
      LOOPBACK_HOSTS.has(u.hostname) &&
      u.origin === origin.replace(/\/$/, '')
    );
  } catch {
    return false; // "null" (a file or sandboxed page) and anything unparseable
  }
}

function jsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

type Body = { text: string } | { tooLarge: true; cut: boolean } | { aborted: true };

/**
 * The request body, or that it was too large: past MAX_MESSAGE_BYTES the rest is read and dropped
 * (the client is still sending it and would not read an early answer), up to MAX_DRAIN_BYTES.
 */
function readBody(req: IncomingMessage): Promise<Body> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_DRAIN_BYTES) {
      req.pause();
      return resolve({ tooLarge: true, cut: true });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_MESSAGE_BYTES) chunks.push(c);
      else if (size > MAX_DRAIN_BYTES) {
        req.pause();
        req.removeAllListeners('data');
        resolve({ tooLarge: true, cut: true });
      } else chunks.length = 0;
    });
    req.on('end', () =>
      resolve(
        size > MAX_MESSAGE_BYTES ? { tooLarge: true, cut: false } : { text: Buffer.concat(chunks).toString('utf8') },
      ),
    );
    req.on('error', () => resolve({ aborted: true }));
    req.on('aborted', () => resolve({ aborted: true }));
  });
}

interface Session {
  transport: StreamableHTTPServerTransport;
  binding: SessionBinding;
  /** Running until the client sends `notifications/initialized` (`handshakeMs`). */
  handshake?: NodeJS.Timeout;
  /** Running since the session's GET stream closed (`leftAfterMs`). */
  left?: NodeJS.Timeout;
}

const asList = (body: unknown): unknown[] => (Array.isArray(body) ? body : [body]);
const initializes = (body: unknown) =>
  asList(body).some(
    (m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'notifications/initialized',
  );
const callsTool = (body: unknown) =>
  asList(body).some(
    (m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'tools/call' && 'id' in m,
  );

/** Why a request is refused before its body is read (not this endpoint's path, Host or Origin; a GET it does not serve), or undefined. */
function refusal(
  req: IncomingMessage,
  o: { path: string; port: number; getStream: boolean },
): { status: number; code: number; message: string; headers?: Record<string, string> } | undefined {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname !== o.path)
    return { status: 404, code: ErrorCode.InvalidRequest, message: `not found: the MCP endpoint is ${o.path}` };
  // Who may talk to the endpoint, before anything else: this endpoint's Host, and no page from elsewhere.
  const host = req.headers.host ?? '';
  if (host !== `127.0.0.1:${o.port}` && host !== `localhost:${o.port}`)
    return {
      status: 403,
      code: -32000,
      message: `Forbidden: Host "${host.slice(0, 100)}" is not this endpoint (127.0.0.1:${o.port})`,
    };
  const origin = req.headers.origin;
  if (origin !== undefined && !loopbackOrigin(origin))
    return {
      status: 403,
      code: -32000,
      message: `Forbidden: requests from origin "${origin.slice(0, 100)}" are not allowed; only pages on this machine (loopback) may call the endpoint`,
    };
  if (req.method === 'GET' && !o.getStream)
    return {
      status: 405,
      code: ErrorCode.InvalidRequest,
      message: 'this server sends no notifications: no GET stream',
      headers: { allow: 'POST, DELETE' },
    };
  return undefined;
}

/**
 * A POST's JSON body; undefined when the request was answered instead (not JSON, too large, not
 * parseable) or the client went away.
 */
async function readJsonRequest(req: IncomingMessage, res: ServerResponse): Promise<{ body: unknown } | undefined> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    jsonRpcError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json', {
      connection: 'close',
    });
    return undefined;
  }
  const read = await readBody(req);
  if ('aborted' in read) {
    res.destroy();
    return undefined;
  }
  if ('tooLarge' in read) {
    res.once('finish', () => read.cut && req.destroy());
    jsonRpcError(
      res,
      413,
      ErrorCode.InvalidRequest,
      `Request too large: a message is at most ${MAX_MESSAGE_BYTES} bytes`,
      {
        connection: 'close',
      },
    );
    return undefined;
  }
  try {
    return { body: JSON.parse(read.text) };
  } catch (e) {
    jsonRpcError(res, 400, ErrorCode.ParseError, `Parse error: ${(e as Error).message}`);
    return undefined;
  }
}

/**
 * Starts the endpoint.
 *
 * @example
 * const host = await startHttpHost({ open: () => ({ server, onClose() {}, onAbortedCall() {} }) });
 * console.log(host.url); // http://127.0.0.1:41234/mcp
 */
export async function startHttpHost(opts: HttpHostOptions): Promise<HttpHost> {
  const path = opts.path ?? '/mcp';
  const sessions = new Map<string, Session>();
  let closing = false;
  let port = 0;

  const maxSessions = opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const handshakeMs = opts.handshakeMs ?? HANDSHAKE_MS;
  /** Initializes accepted for a session that does not exist yet. */
  let opening = 0;

  /** One request: refused before anything else, its body read, then to its session or opening one. */
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const refused = refusal(req, { path, port, getStream: opts.leftAfterMs !== undefined });
    if (refused) return jsonRpcError(res, refused.status, refused.code, refused.message, refused.headers);
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJsonRequest(req, res);
      if (!read) return;
      body = read.body;
    }
    const sid = req.headers['mcp-session-id'];
    const id = Array.isArray(sid) ? sid[0] : sid;
    if (id !== undefined) return toSession(id, req, res, body);
    if (req.method !== 'POST' || !asList(body).some((m) => isInitializeRequest(m))) {
      return jsonRpcError(
        res,
        400,
        ErrorCode.InvalidRequest,
        'Bad Request: no session; start with an initialize request (no Mcp-Session-Id header)',
      );
    }
    if (closing) return jsonRpcError(res, 503, ErrorCode.InvalidRequest, 'the server is shutting down');
    if (!(await makeRoom())) {
      return jsonRpcError(
        res,
        503,
        -32000,
        `Service Unavailable: ${maxSessions} sessions are open, the most this server takes at once; end one (DELETE) or try again later`,
        { 'retry-after': '1' },
      );
    }
    opening++;
    try {
      await openSession(req, res, body);
    } finally {
      opening--;
    }
  };

  /** A request of an open session (the Mcp-Session-Id header): the handshake and the client's presence noted, then to its transport. */
  const toSession = (id: string, req: IncomingMessage, res: ServerResponse, body: unknown) => {
    const s = sessions.get(id);
    if (!s)
      // -32001 with 404 is what the SDK answers for an unknown session.
      return jsonRpcError(res, 404, -32001, 'Session not found: it ended or never existed; initialize a new session');
    if (s.handshake && req.method === 'POST' && initializes(body)) {
      clearTimeout(s.handshake);
      delete s.handshake;
    }
    // Anything from the client (a reconnected stream included) says it is still there.
    clearTimeout(s.left);
    if (req.method === 'GET') res.on('close', () => streamClosed(id, s, res));
    if (req.method === 'POST' && callsTool(body)) {
      res.on('close', () => {
        if (!res.writableFinished) s.binding.onAbortedCall();
      });
    }
    return s.transport.handleRequest(req, res, body);
  };

  /** Whether a new session fits: sessions whose run is over (a client that called finish and kept the session) give their place first. */
  const makeRoom = async (): Promise<boolean> => {
    for (const [sid, s] of sessions) {
      if (sessions.size + opening < maxSessions) break;
      if (s.binding.ended?.()) {
        sessions.delete(sid);
        await s.binding.server.close();
      }
    }
    return sessions.size + opening < maxSessions;
  };

  /** A session's GET stream closed: unless the client comes back within leftAfterMs, it has left. */
  const streamClosed = (id: string, s: Session, res: ServerResponse) => {
    // A refused GET (a second stream while one is open: 409) was never the session's stream; a
    // closed session has no client to lose. (The transport takes a new stream only once the old one
    // is gone: a reconnection comes after this, and clears the timer.)
    if (res.statusCode !== 200 || closing || sessions.get(id) !== s || opts.leftAfterMs === undefined) return;
    clearTimeout(s.left);
    s.left = setTimeout(() => {
      if (sessions.get(id) !== s) return;
      s.binding.onLeft?.();
      s.binding.server.close().catch((e: unknown) => opts.onError?.(e instanceof Error ? e : new Error(String(e))));
    }, opts.leftAfterMs);
    s.left.unref();
  };

  const openSession = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    const bound = opts.open();
    if ('refuse' in bound) return jsonRpcError(res, 409, ErrorCode.InvalidRequest, bound.refuse);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: opts.streamReplies !== true,
      enableDnsRebindingProtection: true,
      allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`],
      onsessioninitialized: (sessionId) => {
        // The client has handshakeMs to send `initialized`; a session that never does gives its place back.
        const handshake = setTimeout(() => {
          if (sessions.get(sessionId)?.handshake !== handshake) return;
          sessions.delete(sessionId);
          void bound.server.close();
        }, handshakeMs);
        handshake.unref();
        sessions.set(sessionId, { transport, binding: bound, handshake });
      },
    });
    let closed = false;
    bound.server.onclose = () => {
      if (closed) return;
      closed = true;
      if (transport.sessionId) {
        const s = sessions.get(transport.sessionId);
        clearTimeout(s?.handshake);
        clearTimeout(s?.left);
        sessions.delete(transport.sessionId);
      }
      bound.onClose();
    };
    if (opts.onError) bound.server.onerror = opts.onError;
    await bound.server.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize the transport refused leaves no session behind: end what was opened for it.
    if (!transport.sessionId || !sessions.has(transport.sessionId)) await bound.server.close();
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      opts.onError?.(e instanceof Error ? e : new Error(String(e)));
      jsonRpcError(res, 500, ErrorCode.InternalError, 'internal error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  if (opts.allowThroughSeal ?? true) seal.allowOrigin(origin);

  return {
    url: `${origin}${path}`,
    get sessions() {
      return sessions.size;
    },
    async close() {
      closing = true;
      for (const s of sessions.values()) clearTimeout(s.handshake);
      await Promise.all([...sessions.values()].map((s) => s.binding.server.close()));
      sessions.clear();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
