/**
 * A fake OpenAI-compatible model for `oneway bench`'s LLM-bound case: node:http on 127.0.0.1 (no
 * network), every answer sent after a fixed latency measured by a timer on the server's side, so
 * the harness waits for it as it would for a real model. The answers are scripted from the
 * conversation (a stateless script, as test/llm/mock-model.ts's): three requests per run of the
 * bundled scenario invoice-and-notify (verify and create in one batch; ask for approval; finish).
 *
 * The bench runs it in a process of its own (`node fake-model.ts --latency=200` prints the port), so
 * the harness's CPU time per model request is the harness's alone.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ChatBody {
  model?: string;
  messages?: { role: string; content?: unknown }[];
}

/** The tool calls of the model's answer number `turn` (0-based); none: a plain-text answer, which finishes. */
const SCRIPT: [string, Record<string, unknown>][][] = [
  [
    ['verify_recipient', { email: 'ap@northwind-traders.example' }],
    ['create_invoice', { customer: 'northwind-traders', amount: 18450, currency: 'EUR' }],
  ],
  [['request_approval', { action: 'send_invoice_email' }]],
];

/** The completion for a request: the scripted answer for the conversation's turn. */
export function answer(body: ChatBody): unknown {
  const turn = (body.messages ?? []).filter((m) => m.role === 'assistant').length;
  const calls = SCRIPT[turn];
  const message = calls
    ? {
        role: 'assistant',
        content: null,
        refusal: null,
        tool_calls: calls.map(([name, args], i) => ({
          id: `call_${turn}_${i}`,
          type: 'function',
          function: { name, arguments: JSON.stringify(args) },
        })),
      }
    : { role: 'assistant', content: 'Done: verified, created, approval asked.', refusal: null };
  return {
    id: `chatcmpl-bench-${turn}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: body.model ?? 'fake',
    choices: [{ index: 0, finish_reason: calls ? 'tool_calls' : 'stop', logprobs: null, message }],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
  };
}

export interface FakeModel {
  /** Ends in /v1, as a real server's does. */
  baseURL: string;
  /** Requests answered so far. */
  readonly requests: number;
  close(): Promise<void>;
}

/** Serves the script on 127.0.0.1 at an ephemeral port, each answer `latencyMs` after its request arrived whole. */
export async function startFakeModel(latencyMs: number): Promise<FakeModel> {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      setTimeout(() => {
        let body: ChatBody = {};
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatBody;
        } catch {
          /* an empty conversation: the first answer */
        }
        requests++;
        const text = JSON.stringify(answer(body));
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      }, latencyMs);
    });
  });
  // As many connections as the harness opens at once (--concurrency=128), none refused.
  server.maxConnections = 10_000;
  await new Promise<void>((r) => server.listen({ port: 0, host: '127.0.0.1', backlog: 1024 }, r));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

// Run as a process of its own: prints {"baseURL": ...} once listening, stops when its stdin closes.
if (process.argv[1] && resolve(process.argv[1]) === resolve(fileURLToPath(import.meta.url))) {
  const latency = Number(process.argv.find((a) => a.startsWith('--latency='))?.slice('--latency='.length) ?? 200);
  const model = await startFakeModel(latency);
  process.stdout.write(`${JSON.stringify({ baseURL: model.baseURL })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void model.close().then(() => process.exit(0)));
}
