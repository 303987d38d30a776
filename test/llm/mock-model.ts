/**
 * A scripted OpenAI-compatible model for tests. `handle` is a fetch-style
 * handler (Request in, Response out); `startMockModel` serves it on a loopback
 * port. The planner allows that origin through the seal (`seal.allowOrigin`),
 * so requests take the production path: intercepted by the seal's MSW server,
 * passed through to the one allowed origin, everything else an escape.
 *
 * Scripts are stateless where they can be: the reply depends on the request
 * (the conversation so far), so interleaved runs and trials get the same answers.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatCompletionCreateParamsNonStreaming as ChatRequest } from 'openai/resources/chat/completions';

interface Seen {
  body: ChatRequest;
  headers: IncomingHttpHeaders;
  path: string;
}

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** The model's turn in this conversation: how many answers it gave before. */
export const turnOf = (body: ChatRequest): number => body.messages.filter((m) => m.role === 'assistant').length;

export const systemOf = (body: ChatRequest): string => {
  const m = body.messages[0];
  return m && m.role === 'system' && typeof m.content === 'string' ? m.content : '';
};

function completion(body: ChatRequest, message: Record<string, unknown>, finish: string): Reply {
  // Deterministic "token" counts: a quarter of the characters.
  const prompt = Math.ceil(JSON.stringify(body.messages).length / 4);
  const out = Math.ceil(JSON.stringify(message).length / 4);
  return {
    status: 200,
    body: {
      id: `chatcmpl-mock-${turnOf(body)}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: body.model,
      choices: [
        {
          index: 0,
          finish_reason: finish,
          logprobs: null,
          message: { role: 'assistant', content: null, refusal: null, ...message },
        },
      ],
      usage: { prompt_tokens: prompt, completion_tokens: out, total_tokens: prompt + out },
    },
  };
}

/** Tool calls in one message: `[name, args]`, where a string is sent as the raw (maybe broken) JSON. */
export function calls(body: ChatRequest, ...list: [string, Record<string, unknown> | string][]): Reply {
  const t = turnOf(body);
  return completion(
    body,
    {
      tool_calls: list.map(([name, args], i) => ({
        id: `call_${t}_${i}`,
        type: 'function',
        function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
      })),
    },
    'tool_calls',
  );
}
export const text = (body: ChatRequest, content: string): Reply => completion(body, { content }, 'stop');
export const refusal = (body: ChatRequest, why: string): Reply => completion(body, { refusal: why }, 'stop');
export const empty = (body: ChatRequest): Reply => completion(body, { content: '' }, 'stop');
export const httpError = (status: number, message: string, headers?: Record<string, string>): Reply => ({
  status,
  body: { error: { message, type: 'mock_error', code: null, param: null } },
  ...(headers ? { headers } : {}),
});

export type Script = (body: ChatRequest, n: number) => Reply;

/** Calls of the EMAIL_YAML scenario. */
const VERIFY: [string, Record<string, unknown>] = ['verify_recipient', { email: 'bob@acme.example' }];
const APPROVE: [string, Record<string, unknown>] = ['request_approval', { action: 'send_email' }];
const SEND: [string, Record<string, unknown>] = ['send_email', { to: 'bob@acme.example' }];

/**
 * A model that follows the policy when the system prompt states one (preconditions first,
 * the irreversible call alone) and is eager otherwise (verify and send in one parallel batch).
 */
export const agent: Script = (body) => {
  const t = turnOf(body);
  if (systemOf(body).includes('Policy:')) {
    if (t === 0) return calls(body, VERIFY, APPROVE);
    if (t === 1) return calls(body, SEND);
    return text(body, 'Done: bob@acme.example was verified, approved and emailed.');
  }
  if (t === 0) return calls(body, VERIFY, SEND);
  return text(body, 'Sent the invoice to bob@acme.example.');
};

export interface MockModel {
  baseURL: string;
  seen: Seen[];
  /** Replaces the script (tests that change behaviour between phases). */
  script: Script;
  close(): Promise<void>;
}

/** The handler as MSW would mount it: a Request in, a Response out. */
async function handle(
  request: Request,
  mock: Pick<MockModel, 'seen' | 'script'>,
  headers: IncomingHttpHeaders,
): Promise<Response> {
  const body = (await request.json()) as ChatRequest;
  mock.seen.push({ body, headers, path: new URL(request.url).pathname });
  const r = mock.script(body, mock.seen.length);
  return new Response(JSON.stringify(r.body), {
    status: r.status,
    headers: { 'content-type': 'application/json', ...r.headers },
  });
}

/** Serves the script on 127.0.0.1 at an ephemeral port; `baseURL` ends in /v1 as a real server's does. */
export async function startMockModel(script: Script = agent): Promise<MockModel> {
  const mock: MockModel = { baseURL: '', seen: [], script, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        body: Buffer.concat(chunks),
      });
      handle(request, mock, req.headers)
        .then(async (r) => {
          res.writeHead(r.status, Object.fromEntries(r.headers));
          res.end(Buffer.from(await r.arrayBuffer()));
        })
        .catch((e: Error) => {
          res.writeHead(500);
          res.end(e.message);
        });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  mock.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  mock.close = () => new Promise((r) => server.close(() => r()));
  return mock;
}
