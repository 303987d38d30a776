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
import { HttpHandler, HttpResponse, passthrough, ws } from 'msw';
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

/** What the seal's handler matched: everything (it reads the URL itself and uses no cookies). */
const MATCHED = {
  match: { matches: true, params: {} as Record<string, string> },
  cookies: {} as Record<string, string>,
};

/**
 * The seal's one handler: every request, any method, any URL. MSW's own catch-all (`http.all('*')`)
 * would parse the request's cookies and match its path, and clone the request so its logs can read
 * the body, on every request; its `run` also wraps the resolver for generator resolvers and cleanups
 * and makes an AbortController (and, on every request, an AbortError) for them. The seal reads the
 * URL itself, uses no cookies, cleanups or generators and runs MSW quietly (setupServer logs
 * nothing): its `run` calls the resolver and nothing else, as each tool call paid for what nothing
 * used (npm run bench: a sandbox call over MSW against a plain MSW fetch; the LLM-bound case).
 */
class CatchAll extends HttpHandler {
  constructor(private readonly answer: (request: Request) => Promise<Response>) {
    // The base keeps a resolver; `run` below calls `answer` itself.
    super(/.+/, '*', ({ request }) => answer(request));
  }

  override async run(args: { request: Request; requestId: string }) {
    const response = await this.answer(args.request);
    this.isUsed = true;
    return { handler: this, parsedResult: MATCHED, request: args.request, requestId: args.requestId, response };
  }
}

/** The bodies of the responses the seal's hosts gave (a run's tool replies): read once, by the caller. */
const served = new WeakSet<ReadableStream>();

/**
 * MSW's fetch interceptor clones every mocked response for its "response" event (msw 2.15: the
 * static `FetchResponse.clone`, FetchResponse being the class HttpResponse extends), which only MSW's
 * `response:mocked` listeners would read, and the seal has none. The clone tees the body into two
 * streams and registers both responses for finalization, so every tool call's reply outlived young
 * collections (npm run bench, LLM-bound case). The seal's own replies are handed on uncloned; any
 * other response (one passed through) is cloned as before. Left alone if MSW no longer has it.
 */
function skipCloneOfServedReplies(): void {
  const fetchResponse = Object.getPrototypeOf(HttpResponse) as { clone?: (response: Response) => Response };
  const mswClone = fetchResponse.clone;
  if (fetchResponse === globalThis.Response || typeof mswClone !== 'function') return;
  fetchResponse.clone = function (response: Response) {
    return response.body !== null && served.has(response.body) ? response : mswClone.call(this, response);
  };
}
skipCloneOfServedReplies();

/**
 * MSW's node:http interceptor also replaces the global Headers, Request and Response with proxies, and
 * patches `Headers.prototype.set/append/delete`, to keep the case of header names for the node:http
 * requests it answers or passes on (msw 2.15, @mswjs/interceptors: "recordRawFetchHeaders"). That
 * made every Headers operation in the process slower: the openai SDK's ~30 per model request, every
 * tool call's request and reply (npm run bench, LLM-bound case). Header names are case-insensitive and
 * nothing in oneway reads their case (without the record, MSW writes them as Headers holds them, in
 * lower case): the patches are undone with the restore function the interceptor keeps on Headers,
 * which then finds none to undo when MSW stops. Left alone if it is not there.
 */
function keepHeadersUnpatched(): void {
  const key = Object.getOwnPropertySymbols(Headers).find((s) => s.description === 'kRestorePatches');
  const restore = key === undefined ? undefined : (Headers as unknown as Record<symbol, unknown>)[key];
  if (typeof restore === 'function') restore();
}

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
      new CatchAll(async (request) => {
        const url = new URL(request.url);
        // Served hosts first: a run's tools (or a test's mock model) win over an allowed origin.
        const host = this.hosts.get(url.host);
        if (host) {
          const reply = await host(request);
          if (reply.body) served.add(reply.body);
          return reply;
        }
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
    keepHeadersUnpatched();
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
