/**
 * The model requests' own HTTP client: a `fetch` for the `openai` SDK over node:http(s) with
 * keep-alive connections, to the model endpoint the seal lets out.
 *
 * Through the global `fetch`, every model request also went through the seal's MSW layer (matched,
 * passed through, its request and response cloned) and undici's per-request machinery: at
 * `--concurrency=128` that was most of the harness's CPU time, and the evaluation ran at half the
 * speed the model allowed (npm run bench, LLM-bound case). The socket layer of the seal still sees
 * these connections: only the allowed origin gets through (harness/engine/sandbox/socket-seal.cjs).
 *
 * What it does not do is left to the global `fetch` (`fetchVia` below): a body that is not text or
 * bytes (a stream), and a host the seal serves itself (a test's mock model mounted in MSW).
 */
import type { IncomingMessage } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { seal, unsealed } from '../../engine/sandbox/seal.ts';

/** Keep-alive connections, one pool per protocol (idle sockets do not hold the process open). */
const agents = {
  http: new unsealed.http.Agent({ keepAlive: true, maxSockets: 512 }),
  https: new unsealed.https.Agent({ keepAlive: true, maxSockets: 512 }),
};

/** What a fetch Response offers the SDK: status, headers, and the body read whole. */
class DirectResponse {
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'basic';
  readonly bodyUsed = false;
  /** The body is read whole before the response is returned: there is no stream to cancel. */
  readonly body = null;

  constructor(
    readonly url: string,
    readonly status: number,
    readonly statusText: string,
    readonly headers: Headers,
    private readonly bytes: Buffer,
  ) {
    this.ok = status >= 200 && status < 300;
  }

  async text(): Promise<string> {
    return this.bytes.toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(this.bytes.toString('utf8'));
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.bytes.buffer.slice(this.bytes.byteOffset, this.bytes.byteOffset + this.bytes.byteLength) as ArrayBuffer;
  }
}

function decoded(res: IncomingMessage, body: Buffer): Buffer {
  const encoding = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(body);
  if (encoding === 'deflate') return inflateSync(body);
  if (encoding === 'br') return brotliDecompressSync(body);
  return body;
}

function headerList(headers: RequestInit['headers']): [string, string][] {
  if (!headers) return [];
  if (Array.isArray(headers)) return headers.map(([k, v]) => [String(k), String(v)]);
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    const out: [string, string][] = [];
    (headers as Headers).forEach((v, k) => out.push([k, v]));
    return out;
  }
  return Object.entries(headers as Record<string, string>).map(([k, v]) => [k, String(v)]);
}

/** Fails as the global fetch fails, so the SDK sees a connection error (retryable) or an abort. */
function fetchFailed(cause: unknown): TypeError {
  const e = new TypeError('fetch failed');
  (e as TypeError & { cause?: unknown }).cause = cause;
  return e;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * A `fetch` for JSON requests (text or bytes bodies) over keep-alive node:http(s) connections.
 *
 * @example
 * const res = await directFetch(new URL('http://127.0.0.1:8080/v1/chat/completions'), { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
 * await res.json();
 */
function directFetch(url: URL, init: RequestInit = {}): Promise<Response> {
  const signal = init.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const secure = url.protocol === 'https:';
    const body = init.body as string | Uint8Array | null | undefined;
    const headers: Record<string, string> = {};
    for (const [k, v] of headerList(init.headers)) headers[k.toLowerCase()] = v;
    if (body != null)
      headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    // What the global fetch asks for; the body is decoded below.
    headers['accept-encoding'] ??= 'gzip, deflate, br';
    const send = secure ? unsealed.https.request : unsealed.http.request;
    const req = send(
      {
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: (init.method ?? 'GET').toUpperCase(),
        headers,
        agent: secure ? agents.https : agents.http,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('error', (e) => reject(signal?.aborted ? abortError(signal) : fetchFailed(e)));
        res.on('end', () => {
          signal?.removeEventListener('abort', onAbort);
          try {
            const h = new unsealed.Headers();
            const raw = res.rawHeaders;
            for (let i = 0; i + 1 < raw.length; i += 2) h.append(raw[i] as string, raw[i + 1] as string);
            resolve(
              new DirectResponse(
                url.href,
                res.statusCode ?? 0,
                res.statusMessage ?? '',
                h,
                decoded(res, Buffer.concat(chunks)),
              ) as unknown as Response,
            );
          } catch (e) {
            reject(fetchFailed(e));
          }
        });
      },
    );
    const onAbort = () => req.destroy(abortError(signal as AbortSignal) as Error);
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (e) => {
      signal?.removeEventListener('abort', onAbort);
      reject(signal?.aborted ? abortError(signal) : fetchFailed(e));
    });
    req.end(body ?? undefined);
  });
}

/**
 * Whether the harness carries requests to `origin` for this process: a planner file's process in a
 * network namespace (harness/engine/sandbox/child-seal.cjs), where the global `fetch` to its model
 * endpoint goes over the channel and a direct connection finds no interface.
 */
function carried(origin: string): boolean {
  const list = (globalThis as Record<symbol, unknown>)[Symbol.for('oneway.carried-model')];
  return Array.isArray(list) && list.includes(origin);
}

/**
 * The fetch a model client uses (the global `fetch` too for a model endpoint the harness carries): the direct one for JSON requests to a host the seal does not serve
 * itself, the global `fetch` (looked up at call time, so MSW sees it) otherwise.
 */
export function modelFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const direct = typeof input === 'string' || input instanceof URL;
  const body = init?.body;
  if (direct && (body == null || typeof body === 'string' || body instanceof Uint8Array)) {
    const url = new URL(String(input));
    if ((url.protocol === 'http:' || url.protocol === 'https:') && !seal.serves(url.host) && !carried(url.origin))
      return directFetch(url, init);
  }
  return globalThis.fetch(input, init);
}
