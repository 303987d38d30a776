/**
 * What an irreversible effect needs instead of a compensation: notify the
 * people it reached, contain the damage, disclose it where rules or trust
 * require. The phrasing depends on what kind of door was walked through,
 * guessed from the tool's name and description and the tables and facts it
 * touched; anything unrecognised gets a sensible generic response.
 */
import { effectFootprint } from '../../core/effects/index.ts';
import type { AppliedEffect } from '../../core/record.ts';

export type ResponseKind =
  'message' | 'secret' | 'access' | 'data' | 'money' | 'delete' | 'deploy' | 'third_party' | 'generic';

export interface Response {
  kind: ResponseKind;
  /** What happened, in a few words: "email sent externally". */
  label: string;
  notify: string;
  contain: string;
  disclose: string;
}

export interface ResponseInput {
  tool: string;
  description?: string;
  effects: readonly AppliedEffect[];
  /** Who or what it reached, already formatted ("to=bob@acme.example"), or empty. */
  whom: string;
}

interface KindRule {
  kind: ResponseKind;
  /** Matched against the tool name (words split on _ - .). */
  name: RegExp;
  /** Matched against the description and the tables and facts touched. */
  context?: RegExp;
}

// Order matters: a "send_payment_reminder" is a message (it names one) before it is money, a
// "send_vendor_payout" is money (the verb "send" alone says nothing), and a "purge_cdn_cache" is a
// production change, not lost data.
const KIND_RULES: KindRule[] = [
  {
    kind: 'secret',
    name: /\b(secret|secrets|token|tokens|credential|credentials|password|passwords|apikey|private key|ssh|env|dotenv)\b/,
    context: /\b(secret|credential|password|api key|private key|token)s?\b/,
  },
  {
    kind: 'access',
    name: /\b(revoke|disable|suspend|deactivate|block|lock|ban|offboard)\b/,
    context: /\b(revoked?|suspended|disabled|access)\b/,
  },
  {
    kind: 'message',
    name: /\b(email|mail|notify|notification|message|messages|sms|reply|remind|reminder|announce|announcement|broadcast|invite|tweet|slack|publish|event|emit|produce)\b/,
    context: /\b(outbox|email|e-mail|mail provider|sms|messages?|topic|consumers)\b/,
  },
  {
    kind: 'data',
    name: /\b(export|share|upload|attach|leak|disclose|expose|forward|sync)\b/,
    context: /\b(exported|shared|public link|third part(y|ies)|leaves? the)\b/,
  },
  {
    kind: 'money',
    name: /\b(refund|pay|payment|payout|charge|transfer|wire|withdraw|credit|debit|disburse|capture)\b/,
    context: /\b(refunds?|payments?|payouts?|card network|transfers?|ledger)\b/,
  },
  { kind: 'message', name: /\b(send|post)\b/ },
  { kind: 'deploy', name: /\b(cdn|cache|invalidate|invalidation)\b/ },
  { kind: 'delete', name: /\b(delete|purge|drop|destroy|remove|wipe|truncate|erase|rollback)\b/ },
  {
    kind: 'deploy',
    name: /\b(deploy|release|rollout|roll out|promote|migrate|migration)\b/,
    context: /\b(deployments?|replicas?|production|rollout)\b/,
  },
  {
    kind: 'third_party',
    name: /\b(webhook|trigger|fulfil|fulfill|fulfilment|fulfillment|ship|order|cancel|exchange|book|reserve|submit|provision|return)\b/,
  },
];

const words = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[_\-./]+/g, ' ');

/**
 * Classifies an irreversible effect and phrases the response it needs.
 *
 * @example
 * irreversibleResponse({ tool: 'send_invoice_email', effects: [], whom: 'to=ap@northwind.example' }).label // 'email sent externally'
 */
export function irreversibleResponse(input: ResponseInput): Response {
  return phrase(classifyEffect(input), input);
}

/** The kind of one-way door a call walked through. */
export function classifyEffect(input: Omit<ResponseInput, 'whom'>): ResponseKind {
  const name = words(input.tool);
  for (const r of KIND_RULES) if (r.name.test(name)) return r.kind;
  // A delete effect that no name explained is still data gone.
  if (input.effects.some(removesData)) return 'delete';
  const context = [input.description ?? '', ...input.effects.map(effectContext)].join(' ').toLowerCase();
  for (const r of KIND_RULES) if (r.context?.test(context)) return r.kind;
  return 'generic';
}

/** Whether an effect took rows away without putting any back (a delete that matched rows). */
function removesData(e: AppliedEffect): boolean {
  const f = effectFootprint(e);
  return f.rowsRemoved.length > 0 && f.rowsAdded.length === 0;
}

/** The words an effect adds to the context: its table's name, or the names of the facts it changed. */
function effectContext(e: AppliedEffect): string {
  const f = effectFootprint(e);
  if (f.table !== undefined) return words(f.table);
  return [...f.factsAdded, ...f.factsRemoved].map((fact) => words(fact.split('(')[0] ?? '')).join(' ');
}

function phrase(kind: ResponseKind, i: ResponseInput): Response {
  const whom = i.whom ? ` (${i.whom})` : '';
  const isEmail = /\b(e-?mail|mail|outbox)\b/.test(`${words(i.tool)} ${(i.description ?? '').toLowerCase()}`);
  const tool = i.tool;
  switch (kind) {
    case 'message':
      return {
        kind,
        label: isEmail
          ? 'email sent externally'
          : /\b(publish|event|emit|produce)\b/.test(words(i.tool))
            ? 'event published to consumers'
            : 'message sent externally',
        notify: `tell the recipients${whom} that the message from ${tool} was sent in error and what to disregard, before they act on it`,
        contain: `stop further sends: cancel anything ${tool} scheduled or queued, and check whether the message was forwarded or replied to`,
        disclose:
          'if it carried personal, confidential or wrong financial data, log it as an incident and tell your privacy or compliance lead',
      };
    case 'secret':
      return {
        kind,
        label: 'secret left the boundary',
        notify: `tell the owner of the credential and your security team that ${tool} exposed it${whom}`,
        contain: 'revoke and rotate the credential now; check access logs for any use since the call',
        disclose:
          'record it as a security incident; disclose to affected customers if the credential guarded their data',
      };
    case 'access':
      return {
        kind,
        label: 'access cut off',
        notify: `tell whoever depended on it${whom} that ${tool} cut off their access, and why`,
        contain:
          'find what broke (clients failing, jobs stopped) and restore service with a new credential or role by the runbook',
        disclose: 'record it in the incident log; tell customers whose service was interrupted',
      };
    case 'data':
      return {
        kind,
        label: 'data left the boundary',
        notify: `tell the data owner what ${tool} sent and to whom${whom}; ask the recipient to delete it`,
        contain: 'revoke shares, links or credentials the recipient could use; stop the sync or export',
        disclose:
          'assess it as a data breach: personal data may need notification to the regulator and the people concerned (GDPR: within 72 hours)',
      };
    case 'money':
      return {
        kind,
        label: 'money moved',
        notify: `tell finance and the account owner${whom} what ${tool} moved, when and why`,
        contain:
          'ask the payment provider whether it can still be cancelled while pending; otherwise reconcile the ledger and decide whether to recover the funds',
        disclose: 'record it in the finance incident log; tell the customer if their account or statement is affected',
      };
    case 'delete':
      return {
        kind,
        label: 'deleted with no way back',
        notify: `tell the owners of the deleted data${whom} what ${tool} removed`,
        contain:
          'look for other copies (replicas, exports, warehouse, caches) before they expire; stop jobs that would propagate the delete',
        disclose: 'if customer or personal data was lost, treat it as an incident and tell the people affected',
      };
    case 'deploy':
      return {
        kind,
        label: 'production changed',
        notify: `tell the on-call and the service owners${whom} that ${tool} changed production`,
        contain: 'roll forward or back by the runbook; watch error rates and consumers of the new behaviour',
        disclose: 'open an incident and update the status page if customers saw the change',
      };
    case 'third_party':
      return {
        kind,
        label: 'third party acted',
        notify: `contact the third party behind ${tool}${whom} and ask them to stop or cancel what it started`,
        contain: 'check what they already did (shipped, booked, charged) and block duplicates',
        disclose: 'tell the customer concerned if they will see its consequences',
      };
    case 'generic':
      return {
        kind,
        label: 'irreversible effect',
        notify: `tell the owner of the system ${tool} acts on what happened${whom}`,
        contain: `suspend the agent's access to ${tool} until the effect is reviewed`,
        disclose: 'record the call, its arguments and time in the incident log; disclose to anyone it affected',
      };
  }
}

// Argument names that say who or what a call reached.
const RECIPIENT_WORDS = new Set([
  'to',
  'cc',
  'bcc',
  'email',
  'emails',
  'recipient',
  'recipients',
  'channel',
  'customer',
  'account',
  'user',
  'users',
  'phone',
  'workspace',
  'tenant',
  'org',
  'organization',
  'organisation',
  'team',
  'member',
  'owner',
  'payee',
  'destination',
  'address',
  'charge',
  'order',
  'service',
  'environment',
  'repo',
  'repository',
  'warehouse',
  'contact',
  'handle',
  'username',
  'group',
  'list',
  'audience',
  'merchant',
  'vendor',
  'supplier',
  'partner',
]);

/** `customerEmail`, `customer_email`, `customer-email` → ['customer', 'email']. */
const argWords = (key: string): string[] =>
  key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[_\-.]+/)
    .filter(Boolean);

/**
 * The arguments of a call that name who or what it reached (to, email, recipient, channel,
 * customer, account, ...), in argument order.
 *
 * @example
 * recipients({ to: 'bob@acme.example', amount: 3 }) // [{ key: 'to', value: 'bob@acme.example' }]
 */
export function recipients(args: Record<string, unknown>): { key: string; value: unknown }[] {
  return Object.entries(args)
    .filter(([k]) =>
      argWords(k).some((w) => RECIPIENT_WORDS.has(w) || (w.endsWith('s') && RECIPIENT_WORDS.has(w.slice(0, -1)))),
    )
    .map(([key, value]) => ({ key, value }));
}
