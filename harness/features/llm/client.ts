/**
 * The live model: one Chat Completions request through the official `openai`
 * SDK, with our retry loop around it and errors that say what to do.
 *
 * The SDK client is built on the first request. Its requests go straight to
 * the model endpoint (harness/features/llm/direct-fetch.ts: keep-alive node:http, under
 * the socket layer of the seal, which lets out that one origin); a host the
 * seal serves itself (a test's mock model) and an injected `fetch` are used as
 * given, looked up at call time.
 */
import OpenAI from 'openai';
import { OnewayError } from '../../core/errors.ts';
import type { Rng } from '../../util/rng.ts';
import type { ChatRequest, ModelFn } from './chat.ts';
import { OPENAI_BASE_URL, type LlmOptions } from './options.ts';
import { modelFetch } from './direct-fetch.ts';
import { redact } from './redact.ts';
import { limiterFor, RequestFailed, withRetries } from './retry.ts';

/** A model request that cannot succeed; `retries` were spent on it. */
export class ModelError extends OnewayError {
  constructor(
    message: string,
    readonly retries: number,
  ) {
    super('model', message);
    this.name = 'ModelError';
  }
}

export interface LiveDeps {
  apiKey: string | undefined;
  rng: Rng;
  sleep(ms: number): Promise<void>;
  fetch?: typeof globalThis.fetch;
}

/** SDK clients without an injected fetch, by key, base URL and timeout (they hold no per-run state). */
const sharedClients = new Map<string, OpenAI>();

/** Local servers (vLLM, Ollama, LM Studio) ignore the key, but the SDK insists on one. */
const LOCAL_PLACEHOLDER_KEY = 'not-needed';

function isOpenAI(baseURL: string): boolean {
  return new URL(baseURL).origin === new URL(OPENAI_BASE_URL).origin;
}

function explain(e: RequestFailed, opts: LlmOptions, apiKey: string | undefined): ModelError {
  const where = `${opts.baseURL} (model ${opts.model})`;
  const f = e.failure;
  const detail = f.message.replace(/^\d{3}\s+/, '');
  let msg: string;
  if (f.status === 401)
    msg = `the model server rejected the API key (401) at ${where}: check OPENAI_API_KEY. ${detail}`;
  else if (f.status === 403) msg = `the model server refused access (403) at ${where}: ${detail}`;
  else if (f.status === 404)
    msg = `not found (404) at ${where}: check --planner-opt model=... and base_url (it usually ends in /v1). ${detail}`;
  else if (e.exhausted)
    msg = `the model server kept failing (${f.status ?? 'connection error'}) after ${e.retries} retries at ${where}: ${detail}`;
  else msg = `the model request failed (${f.status ?? 'no response'}) at ${where}: ${detail}`;
  return new ModelError(redact(msg, [apiKey]), e.retries);
}

/**
 * A `ModelFn` that calls the server at `opts.baseURL`.
 *
 * @example
 * const model = liveModel(opts, { apiKey: process.env.OPENAI_API_KEY, rng, sleep });
 * const { completion, retries } = await model({ model: 'gpt-4o-mini', messages });
 */
export function liveModel(opts: LlmOptions, deps: LiveDeps): ModelFn {
  let client: OpenAI | undefined;
  // Every run's requests to this origin share one limiter: a retry-after slows the whole pool.
  const limiter = limiterFor(new URL(opts.baseURL).origin);
  const connect = (): OpenAI => {
    if (client) return client;
    if (!deps.apiKey && isOpenAI(opts.baseURL)) {
      throw new ModelError(
        'OPENAI_API_KEY is not set: export it, or point base_url (or OPENAI_BASE_URL) at a local OpenAI-compatible server',
        0,
      );
    }
    const fetchFn = deps.fetch;
    // Every run of an evaluation asks the same server with the same key: one SDK client serves them all.
    const key = fetchFn ? undefined : `${deps.apiKey ?? ''}\u0000${opts.baseURL}\u0000${opts.timeoutMs}`;
    const shared = key === undefined ? undefined : sharedClients.get(key);
    if (shared) return (client = shared);
    client = new OpenAI({
      apiKey: deps.apiKey || LOCAL_PLACEHOLDER_KEY,
      baseURL: opts.baseURL,
      maxRetries: 0,
      timeout: opts.timeoutMs,
      logLevel: 'off',
      // Straight to the model endpoint over keep-alive connections, not through the seal's MSW layer
      // (harness/features/llm/direct-fetch.ts); a test's own fetch, or a host the seal serves, as given.
      fetch: (url, init) => (fetchFn ?? modelFetch)(url, init),
    });
    if (key !== undefined) {
      if (sharedClients.size >= 16) sharedClients.clear();
      sharedClients.set(key, client);
    }
    return client;
  };
  return async (request: ChatRequest) => {
    const c = connect();
    try {
      const { value, retries } = await withRetries(() => c.chat.completions.create(request), {
        maxRetries: opts.maxRetries,
        baseMs: opts.retryBaseMs,
        rng: deps.rng,
        sleep: deps.sleep,
        limiter,
      });
      return { completion: value, retries };
    } catch (e) {
      if (e instanceof RequestFailed) throw explain(e, opts, deps.apiKey);
      throw new ModelError(
        redact(`the model request failed at ${opts.baseURL}: ${(e as Error).message}`, [deps.apiKey]),
        0,
      );
    }
  };
}
