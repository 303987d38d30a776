/**
 * A scripted stand-in for an OpenAI-compatible chat model, to try the agent examples without a
 * model, a key or a network, on oneway's bundled scenario `invoice-and-notify`. The reply depends
 * only on the conversation so far, so every run gets the same answers. The model name (ONEWAY_MODEL)
 * picks the order of the tool calls:
 * - `premature`: verify, create and send in one answer (the send's invoice id a guess);
 * - `correct` (any other name): verify and create in one answer, then the send alone, with the
 *   id create_invoice returned.
 * offline.mjs serves it; oneway's own tests use the same script.
 */

const EMAIL = 'ap@northwind-traders.example';
const VERIFY = ['verify_recipient', { email: EMAIL }];
const CREATE = [
  'create_invoice',
  { customer: 'northwind-traders', amount: 18450, currency: 'EUR', po_number: 'PO-2025-0613' },
];
/** @param {string} invoiceId */
const send = (invoiceId) => ['send_invoice_email', { to: EMAIL, customer: 'northwind-traders', invoice_id: invoiceId }];
/** The invoice the scenario's world starts with (paid): not the one this run created. */
const EXISTING_INVOICE = 'in_7kq2m9x4ta';

/**
 * @typedef {{ role: string, content?: unknown }} Message
 * @typedef {{ model?: string, messages?: Message[] }} ChatRequest
 */

/** The id create_invoice returned, from the tool results so far. @param {Message[]} messages */
function createdId(messages) {
  for (const m of messages) {
    if (m.role !== 'tool') continue;
    const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
    const id = /"id"\s*:\s*"(in_[a-z0-9]+)"/.exec(content.replace(/\\"/g, '"'))?.[1];
    if (id && id !== EXISTING_INVOICE) return id;
  }
  return undefined;
}

/**
 * The chat completion (the body of a `POST /v1/chat/completions` answer) for a request.
 *
 * @example
 * completion({ model: 'correct', messages: [{ role: 'user', content: 'Invoice Northwind…' }] })
 * // { choices: [{ message: { tool_calls: [verify_recipient, create_invoice] } }], … }
 * @param {ChatRequest} body
 */
export function completion(body) {
  const messages = body.messages ?? [];
  const turn = messages.filter((m) => m.role === 'assistant').length;
  /** @type {[string, Record<string, unknown>][] | undefined} */
  let calls;
  if (body.model === 'premature') calls = turn === 0 ? [VERIFY, CREATE, send('in_latest')] : undefined;
  else if (turn === 0) calls = [VERIFY, CREATE];
  else if (turn === 1) {
    const id = createdId(messages);
    calls = id ? [send(id)] : undefined;
  }
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
    : {
        role: 'assistant',
        content: body.model === 'premature' ? 'Invoiced and emailed.' : 'Invoiced, verified, signed off and emailed.',
        refusal: null,
      };
  // Deterministic "token" counts: a quarter of the characters.
  const prompt = Math.ceil(JSON.stringify(messages).length / 4);
  const out = Math.ceil(JSON.stringify(message).length / 4);
  return {
    id: `chatcmpl-fake-${turn}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: body.model ?? 'correct',
    choices: [{ index: 0, finish_reason: calls ? 'tool_calls' : 'stop', logprobs: null, message }],
    usage: { prompt_tokens: prompt, completion_tokens: out, total_tokens: prompt + out },
  };
}
