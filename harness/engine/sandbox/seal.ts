/**
 * The seal: one process-wide MSW server with a single catch-all handler.
 *
 * MSW tries handlers one by one, so a handler per tool per run would make every
 * call slower as tools and concurrent runs multiply; one catch-all that looks
 * the run up in a Map by host stays flat. A catch-all that always answers also
 * closes the gaps `onUnhandledRequest` leaves (requests that look like static
 * assets are exempted from it and would reach the network).
 *
 * A request no run serves is answered with a network error and counted as a
 * sandbox escape on the run whose code made it (found through
 * AsyncLocalStorage), or as an unattributed escape (made outside any run, or
 * by a run's code after that run ended).
 *
 * Under MSW, socket-seal.cjs closes the socket layer (net, tls, http2, dgram,
 * dns, worker threads, Node's handles): it is installed when this module
 * loads, so before any planner code, and refuses while the seal is held. Both
 * layers let out exactly the origins given to `allowOrigin`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import * as nodeHttp from 'node:http';
import * as nodeHttps from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import { HttpHandler, HttpResponse, passthrough, ws, type HttpResponseResolver } from 'msw';
import { setupServer, type SetupServer } from 'msw/node';
import type { EscapeEvent } from '../../core/record.ts';
import socketSeal from './socket-seal.cjs';

export type Escape = Omit<EscapeEvent, 'type' | 't_ms'>;

/**
 * node:http(s) and Headers as they are before MSW patches them (captured when this module loads,
 * before the seal is first acquired): the harness's own model client (harness/features/llm/direct-fetch.ts)
 * goes to the one allowed origin directly, under the socket layer of the seal only.
 */
export const unsealed = {
  http: { request: nodeHttp.request, Agent: nodeHttp.Agent },
  https: { request: nodeHttps.request, Agent: nodeHttps.Agent },
  Headers: globalThis.Headers,
};

/**
 * The run whose code is executing, so an escaping request can be charged to it. `ended` is set
 * when the run is over: what its code still does then (a timer) is unattributed.
 */
export const runContext = new AsyncLocalStorage<{ onEscape(e: Escape): void; ended?: boolean }>();

type HostHandler = (request: Request) => Promise<Response>;

/** Strips the query and credentials: a URL in a record must not carry a secret. */
function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(unparseable url)';
  }
}

/**
 * The seal's one handler: every request, any method, any URL. MSW's own catch-all (`http.all('*')`)
 * would parse the request's cookies and match its path, and clone the request so its logs can read
 * the body, on every request; the seal reads the URL itself, uses no cookies and runs MSW quietly
 * (setupServer logs nothing), so each tool call paid for what nothing used (npm run bench: a
 * sandbox call over MSW against a plain MSW fetch).
 */
class CatchAll extends HttpHandler {
  constructor(resolver: HttpResponseResolver) {
    super(/.+/, '*', resolver);
    // The clone for the logs is a private method of MSW's RequestHandler (msw 2.15): kept if it is gone.
    const self = this as unknown as { cloneRequestOrGetFromCache?: (request: Request) => Request };
    if (typeof self.cloneRequestOrGetFromCache === 'function') self.cloneRequestOrGetFromCache = (request) => request;
  }

  override async parse(): Promise<{
    match: { matches: boolean; params: Record<string, string> };
    cookies: Record<string, string>;
  }> {
    return { match: { matches: true, params: {} }, cookies: {} };
  }
}

const catchAll = (resolver: HttpResponseResolver) => new CatchAll(resolver);

class Seal {
  private server: SetupServer | null = null;
  private users = 0;
  private readonly hosts = new Map<string, HostHandler>();
  private readonly allowed = new Set<string>();
  private webSockets: ReturnType<ReturnType<typeof ws.link>['addEventListener']> | undefined;
  readonly unattributed: Escape[] = [];

  /** Starts intercepting (reference-counted: the last `release` stops). */
  acquire(): void {
    if (this.users++ > 0) return;
    const server = setupServer(
      catchAll(async ({ request }) => {
        const url = new URL(request.url);
        // Served hosts first: a run's tools (or a test's mock model) win over an allowed origin.
        const host = this.hosts.get(url.host);
        if (host) return host(request);
        if (this.allowed.has(url.origin)) return passthrough();
        this.escape({ method: request.method, url: redactUrl(request.url), reason: 'no tool serves this request' });
        return HttpResponse.error();
      }),
      // A global WebSocket (Node 22+, or --experimental-websocket) is intercepted by MSW: count it, close it.
      // One link for the seal's life: each ws.link() adds a listener to a channel MSW shares and never removes.
      (this.webSockets ??= ws.link(/.*/).addEventListener('connection', ({ client }) => {
        this.escape({ method: 'WEBSOCKET', url: redactUrl(client.url.href), reason: 'WebSocket outside the sandbox' });
        client.close(1000, 'oneway: no network in the sandbox');
      })),
    );
    // The catch-all answers everything; 'error' is a second line should it ever not.
    server.listen({ onUnhandledRequest: 'error' });
    // MSW clones each response it lets through (the allowed model endpoint, a local MCP server) and
    // nobody reads the clone; cancelling it lets the body's other branch be cancelled by its reader
    // (an MCP client cancels the empty body of a 202 and would otherwise hang).
    server.events.on('response:bypass', ({ response }) => void response.body?.cancel().catch(() => {}));
    // MSW patches the CommonJS objects of node:http and node:https; without this, an ES module's
    // named import (`import { request } from 'node:http'`) keeps the original and walks past the seal.
    syncBuiltinESMExports();
    socketSeal.arm();
    this.server = server;
  }

  release(): void {
    if (this.users === 0) return;
    if (--this.users > 0) return;
    this.server?.close();
    syncBuiltinESMExports();
    socketSeal.disarm();
    this.server = null;
  }

  get active(): boolean {
    return this.server !== null;
  }

  /** Whether a host is served here (a run's tools, a test's mock model), not passed through. */
  serves(host: string): boolean {
    return this.hosts.has(host);
  }

  /** Serves one run's host; returns the function that stops serving it. */
  serve(host: string, handler: HostHandler): () => void {
    this.hosts.set(host, handler);
    return () => this.hosts.delete(host);
  }

  /** Lets requests to an origin through (an LLM planner's model endpoint, and nothing else). */
  allowOrigin(origin: string): void {
    this.allowed.add(new URL(origin).origin);
    socketSeal.allow(origin);
  }

  /** The origins let out at the socket layer (passed on to worker threads started sealed). */
  allowedOrigins(): { host: string; port: number }[] {
    return socketSeal.allowed();
  }

  escape(e: Escape): void {
    const ctx = runContext.getStore();
    if (ctx && !ctx.ended) ctx.onEscape(e);
    else this.unattributed.push(e);
  }
}

/** The process's seal. Worker threads have their own globals, so each gets its own. */
export const seal = new Seal();

// The socket layer is patched as soon as the seal exists (before any planner module is imported),
// and reports what it refuses here, in the context of the code that tried.
socketSeal.install();
socketSeal.setReporter((e) => seal.escape(e));
