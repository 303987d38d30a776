/**
 * The scripted model behind the framework examples (examples/agents/), served by
 * test/llm/mock-model.ts: an OpenAI-compatible loopback server, no network. The model name
 * picks the order of tool calls on invoice-and-notify:
 * - `premature`: verify, create and send in one answer (the send's invoice id a guess);
 * - `correct`: verify and create in one answer, then the send alone with the created invoice's id.
 * The reply depends only on the conversation so far (stateless), as the mock model's scripts do.
 */
import { calls, text, turnOf, type Script } from '../llm/mock-model.ts';

const EMAIL = 'ap@northwind-traders.example';
const VERIFY: [string, Record<string, unknown>] = ['verify_recipient', { email: EMAIL }];
const CREATE: [string, Record<string, unknown>] = [
  'create_invoice',
  { customer: 'northwind-traders', amount: 18450, currency: 'EUR', po_number: 'PO-2025-0613' },
];
const send = (invoiceId: string): [string, Record<string, unknown>] => [
  'send_invoice_email',
  { to: EMAIL, customer: 'northwind-traders', invoice_id: invoiceId },
];

/** The id create_invoice returned, from the tool messages so far. */
function createdId(body: Parameters<Script>[0]): string | undefined {
  for (const m of body.messages) {
    if (m.role !== 'tool') continue;
    const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
    const id = /"id"\s*:\s*"(in_[a-z0-9]+)"/.exec(content.replace(/\\"/g, '"'))?.[1];
    if (id && id !== 'in_7kq2m9x4ta') return id;
  }
  return undefined;
}

export const frameworkScript: Script = (body) => {
  const t = turnOf(body);
  if (body.model === 'premature') {
    if (t === 0) return calls(body, VERIFY, CREATE, send('in_latest'));
    return text(body, 'Invoiced and emailed.');
  }
  if (t === 0) return calls(body, VERIFY, CREATE);
  const id = createdId(body);
  if (t === 1 && id) return calls(body, send(id));
  return text(body, 'Invoiced, verified, signed off and emailed.');
};
