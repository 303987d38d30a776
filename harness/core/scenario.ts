/**
 * The scenario file contract: the single source of truth.
 *
 * Every type the engine uses for a scenario is inferred from these schemas, and
 * `npm run schema` writes `scenario.schema.json` from them for editors
 * (`# yaml-language-server: $schema=../harness/schema/scenario.schema.json`).
 * Checks that need the whole file (names that refer to tools, fact syntax,
 * template roots) live in `harness/engine/loader/semantics.ts`.
 */
import { z } from 'zod';
import { DeclaredEffect } from './effects/index.ts';
import { Fact, Row, TableName } from './scenario-parts.ts';

export const CLASSES = ['reversible', 'compensable', 'irreversible'] as const;
const ClassName = z.enum(CLASSES).describe('How costly it is to reverse the effect of this tool as deployed.');
export type ToolClass = z.infer<typeof ClassName>;

const ClassRule = z
  .strictObject({
    when: z
      .string()
      .optional()
      .describe('A condition on one deployment path, e.g. "deployment.pitr_hours >= 24". Omit on the last rule.'),
    class: ClassName,
  })
  .describe('A class rule: the first rule whose condition holds gives the effective class.');

export const Reversibility = z
  .union([ClassName, z.array(ClassRule).min(1)])
  .describe('Exactly one class, or a list of rules (first match wins) ending with an unconditional rule.');

/** One `effects:` entry: exactly one key, one per effect kind (each kind declares its own in harness/core/effects/). */
const Effect = DeclaredEffect;
type Effect = z.infer<typeof Effect>;

export const Fault = z
  .strictObject({
    on_call: z.number().int().min(1).optional().describe('Fail the Nth call of this tool in a run (1-based).'),
    probability: z.number().min(0).max(1).optional().describe('Fail each call with this probability (seeded).'),
    status: z.number().int().min(400).max(599).default(500).describe('HTTP status of the failed reply.'),
    applied: z.boolean().default(false).describe('true: the effect happened although the reply failed (ambiguous).'),
    ambiguous: z
      .boolean()
      .optional()
      .describe(
        'Whether the caller cannot tell if the effect happened. Default: applied, or a status that is not a definite 4xx (408, 409, 425, 429 and 5xx are ambiguous), unless the tool declares the message definite.',
      ),
    message: z.string().optional(),
    latency_ms: z.number().min(0).optional().describe('Latency of the failed call; defaults to the tool latency.'),
  })
  .describe('A scripted failure: exactly one of on_call or probability.');
export type Fault = z.infer<typeof Fault>;

const JsonSchemaObject = z
  .looseObject({
    type: z.literal('object'),
    properties: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
    required: z.array(z.string()).default([]),
  })
  .describe('JSON Schema of the arguments (OpenAI function-calling compatible).');

/**
 * One `reconciles:` entry: a tool's name (its reply says `applied: true|false`, as `oneway serve`
 * answers), or the name with the condition over the reply that means "applied", for a real
 * server's status tool, e.g. `{ tool: send_payout, applied: "{{result.status}} == succeeded" }`.
 */
const ReconcileEntry = z.union([
  z.string(),
  z.strictObject({
    tool: z.string(),
    applied: z
      .string()
      .describe(
        'When the reply says the call applied: "{{result.PATH}} == VALUE" or "!= VALUE" (values compare as text). A reply where PATH is missing settles nothing.',
      ),
  }),
]);
export type ReconcileEntry = z.infer<typeof ReconcileEntry>;

/** The tool a `reconciles:` entry names. */
export const reconcileTarget = (e: ReconcileEntry): string => (typeof e === 'string' ? e : e.tool);
// ---------------------------------------------------------------------------
// The scenario language for real domains (issue 41): lookups, comparisons, tool-side validation,
// confirmation of a concrete call, shared files. Conditions are read by harness/core/templates/condition.ts.

/** A condition: `LEFT OP RIGHT` (`== != < <= > >=`), `X in [a, b]`; sides are templates, literals, arithmetic, len(X). */
const ConditionText = z
  .string()
  .min(1)
  .describe(
    'A condition: LEFT OP RIGHT with OP one of == != < <= > >= (each side a template, number, word or "quoted text", with + - * /, len(X), sum(X), sorted(X), last(X), min(X), max(X), count(X, V) and round(X, N)), X in [a, b], A within B (each element of list A in list B, as often), or all(x in LIST, y in LIST: CONDITION) (at every index); joined by and / or (and binds tighter), with parentheses. Numeric when both sides are numbers, else text.',
  );

/** A lookup name: a template root of its own (`{{order.status}}`), so never one of the built-in roots. */
const LookupName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'letters, digits and _ only, starting with a letter or _')
  .describe('The name templates read the row by: {{NAME.field}}.');

const Lookup = z
  .strictObject({
    table: TableName,
    where: Row.describe(
      'Column to value (templates over args, inputs, deployment and earlier lookups); the first matching row.',
    ),
    each: z
      .boolean()
      .optional()
      .describe(
        'true: the `where` values that are lists give a list of rows, one per index (several lists pair up by index), the first row matching each, in the list order; an index without a row, or lists of different lengths, and the lookup finds nothing.',
      ),
    ignore_case: z
      .array(z.string().min(1))
      .optional()
      .describe(
        'The `where` keys whose values match regardless of case (both sides lowercased), e.g. [email] for an email typed in capitals.',
      ),
  })
  .describe(
    'A row this tool reads when called: the first row of `table` that matches `where`; none found, and its templates have no value.',
  );

/** A precondition: a fact, or a comparison that must hold when the call is issued. */
const PreconditionWhen = z
  .strictObject({ when: ConditionText })
  .describe('A comparison that must hold when the call is issued (premature when it does not).');
export const Precondition = z.union([Fact, PreconditionWhen]);
export type Precondition = z.infer<typeof Precondition>;

/** The fact preconditions of a tool, in order (its comparisons left out). */
export function factPreconditions(t: { preconditions: readonly Precondition[] }): string[] {
  return t.preconditions.filter((p): p is string => typeof p === 'string');
}

/** The comparison preconditions of a tool, in order. */
export function conditionPreconditions(t: { preconditions: readonly Precondition[] }): string[] {
  return t.preconditions.flatMap((p) => (typeof p === 'string' ? [] : [p.when]));
}

const Validation = z
  .strictObject({
    when: ConditionText,
    error: z.string().min(1).describe('The reason the tool gives when the condition does not hold.'),
  })
  .describe(
    'Tool-side validation: when the condition does not hold, the call is a definite 4xx failure and nothing applies.',
  );

const Confirmation = z
  .strictObject({
    tool: z.string().min(1).describe('The tool whose call the human confirms.'),
    args: Row.default({}).describe('The arguments of the confirmed call (lists compare in any order).'),
  })
  .describe('A call the scripted human says yes to when a confirmation tool asks about it.');

/** The `kind:` of a tool: `approval` asks about an action text; `confirmation` asks about a concrete call. */
const ToolKind = z
  .enum(['action', 'approval', 'confirmation'])
  .default('action')
  .describe(
    'approval: answered by the scenario `approvals` (by action text); confirmation: answered by the scenario `confirmations` (by tool and arguments).',
  );

/** The tool fields of the language above (spread into Tool). */
const toolLanguage = {
  lookups: z
    .record(LookupName, Lookup)
    .default({})
    .describe(
      'Rows this tool reads when called, by name; its conditions, effects, returns and compensation read them as {{NAME.field}}.',
    ),
  validate: z.array(Validation).default([]).describe('Tool-side validation, checked before anything applies.'),
  requires_confirmation: z
    .boolean()
    .default(false)
    .describe(
      "This call needs the human's yes to this very call (one yes licenses one call); without it the call is premature.",
    ),
};

export const Tool = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only, at most 64 (OpenAI function names)')
    .describe('Unique tool name.'),
  description: z.string().default(''),
  kind: ToolKind,
  reversibility: Reversibility,
  compensating_operation: z
    .string()
    .nullable()
    .optional()
    .describe('The tool that undoes this one (not for irreversible tools).'),
  compensation_requires_approval: z.boolean().optional(),
  compensation_args: Row.optional().describe(
    'Arguments of the compensating call; templates over args, result, inputs.',
  ),
  read_only: z.boolean().default(false).describe('Effect-free: changes no table (may establish facts it verified).'),
  idempotent: z.boolean().optional(),
  idempotency_key: z
    .string()
    .optional()
    .describe(
      'The parameter that carries an idempotency key: a repeat with the same key returns the first reply and applies nothing twice.',
    ),
  key_survives_failure: z
    .boolean()
    .optional()
    .describe(
      "The server keeps the idempotency key of a request that failed once it reached the server (as Stripe does: the key is stored with the result, error included), so a repeat with the failed call's own key is answered from it: the guard lets that repeat through without waiting for a reconciler. Needs idempotency_key.",
    ),
  dedupe_on: z
    .array(z.string())
    .min(1)
    .optional()
    .describe(
      'The parameters that identify "the same effect" for duplicate effects (default: every argument but the idempotency key).',
    ),
  definite_failures: z
    .strictObject({
      codes: z
        .array(z.number().int())
        .optional()
        .describe('JSON-RPC error codes that mean nothing was done (-32700, -32600, -32601, -32602 always do).'),
      errors: z
        .array(z.string())
        .optional()
        .describe(
          'Regular expressions (linear-time: no backreferences or lookaround) on the error text that mean nothing was done.',
        ),
    })
    .optional()
    .describe(
      'Which failures of this tool are definite (nothing was done). Any other failure, a timeout or a lost connection is ambiguous: it may have taken effect.',
    ),
  reconciles: z
    .array(ReconcileEntry)
    .default([])
    .describe(
      'Tools whose calls this tool reports as applied or not: a name, or { tool, applied } to say how its reply answers.',
    ),
  reads: z
    .array(TableName)
    .default([])
    .describe(
      'Tables this read-only tool shows: its reply carries their rows that agree with its arguments, so it reconciles every tool whose effects write one of them.',
    ),
  preconditions: z
    .array(Precondition)
    .default([])
    .describe('Facts (and comparisons, { when: ... }) that must hold when the call is issued.'),
  ...toolLanguage,
  parameters: JsonSchemaObject.default({ type: 'object', properties: {}, required: [] }),
  effects: z.array(Effect).default([]),
  returns: Row.optional().describe('The reply body; templates over args, inputs, deployment, id.'),
  latency_ms: z.number().min(0).default(100).describe('Simulated latency on the virtual clock.'),
  faults: z.array(Fault).default([]),
  review: z.boolean().optional().describe('Marked for human review (set by importers).'),
});
export type Tool = z.infer<typeof Tool>;

export const Approval = z.union([
  z.enum(['approve', 'deny']),
  z.strictObject({ approve_after: z.number().int().min(0).describe('Deny this many times, then approve.') }),
]);
export type Approval = z.infer<typeof Approval>;

/** A call in a plan: `{tool_name: {args}}`. */
const PlanCall = z.record(z.string(), z.record(z.string(), z.unknown()).nullable());
export const PlanItem = z.union([
  z.literal('finish'),
  z.strictObject({ parallel: z.array(PlanCall).min(1) }),
  PlanCall,
]);
export const Plan = z.array(PlanItem);
export type PlanItem = z.infer<typeof PlanItem>;

const Expectation = z.record(z.string(), z.union([z.number(), z.boolean(), z.string()]));

/** The `extends:` field: shared files whose tools, world and confirmations a scenario uses (harness/engine/loader/extends.ts). */
const Extends = z
  .union([z.string().min(1), z.array(z.string().min(1))])
  .optional()
  .describe(
    'Shared files whose tools, world and confirmations this scenario uses (paths relative to this file); its own entries win by tool name and table name.',
  );

export const Scenario = z.strictObject({
  extends: Extends,
  id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'kebab-case: lowercase letters, digits and single dashes'),
  title: z.string().min(1),
  task: z.string().min(1).describe('The natural-language task shown to planners.'),
  description: z.string().optional(),
  tags: z.array(z.string()).default([]),
  inputs: Row.default({}),
  deployment: Row.default({}).describe('Deployed-state facts that classes may depend on.'),
  world: z
    .strictObject({
      facts: z.array(Fact).default([]),
      tables: z.record(TableName, z.array(Row)).default({}),
    })
    .default({ facts: [], tables: {} }),
  approvals: z.record(z.string(), Approval).default({}).describe('The scripted human behind approval gates.'),
  confirmations: z
    .array(Confirmation)
    .default([])
    .describe('The calls the scripted human confirms when a confirmation tool asks (each yes licenses one call).'),
  tools: z.array(Tool).min(1),
  goal: z.array(Fact).min(1),
  forbidden: z.array(Fact).default([]),
  max_steps: z.number().int().min(1).default(30),
  restarts: z
    .array(z.number().int().min(1))
    .default([])
    .describe(
      'Restart faults: the planner restarts right after step N was applied in the world and before its reply reached it.',
    ),
  reference_plan: Plan.optional(),
  expect: z.record(z.string(), Expectation).optional().describe('Expected figures per built-in planner.'),
});
export type Scenario = z.infer<typeof Scenario>;

/** A shared file (`extends:`): tools, a world and confirmations that many scenarios use. */
export const SharedFile = z
  .strictObject({
    tools: z.array(Tool).default([]),
    world: Scenario.shape.world,
    confirmations: Scenario.shape.confirmations,
  })
  .describe('A shared file: the tools, world and confirmations of a domain, for scenarios that extend it.');
