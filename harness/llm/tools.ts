/**
 * Scenario tools as OpenAI function definitions, and the check of the
 * arguments a model sends back. The aware variant's definitions carry each
 * tool's class, compensation, preconditions and what it establishes; the plain
 * variant's are what an ordinary agent framework would send.
 */
import type { ToolView } from '../planner/types.ts';
import type { FunctionTool } from './chat.ts';

export type Variant = 'plain' | 'aware';

function callText(tool: string, args: Record<string, unknown> | null): string {
  const parts = Object.entries(args ?? {}).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return `${tool}(${parts.join(', ')})`;
}

/** The class as a sentence, with how the effect is undone. */
export function classText(t: ToolView): string {
  if (t.class === 'irreversible') return 'irreversible: its effect cannot be undone';
  if (t.read_only) return `${t.class} (read-only: changes nothing)`;
  const undo = t.compensating_operation ? callText(t.compensating_operation, t.compensation_args) : 'no named operation';
  if (t.class === 'compensable') return `compensable: undone only by a new action, ${undo}${t.compensation_requires_approval ? ', which needs approval' : ''}`;
  return `reversible: undone by ${undo}`;
}

/**
 * The aware annotation of one tool: class, gate, preconditions, effects, reconciliation.
 *
 * @example
 * annotation(sendEmail) // 'Class: irreversible: ...\nPreconditions (must hold before the call): recipient_verified(email={{args.to}}); ...'
 */
export function annotation(t: ToolView): string {
  const lines = [`Class: ${classText(t)}.`];
  if (t.kind === 'approval') lines.push('Approval gate: asks a human to approve; replies {"approved": true|false}.');
  lines.push(`Preconditions (must hold before the call): ${t.preconditions.length ? t.preconditions.join('; ') : 'none'}.`);
  if (t.establishes.length) lines.push(`Establishes on success: ${t.establishes.join('; ')}.`);
  if (t.revokes.length) lines.push(`Revokes on success: ${t.revokes.join('; ')}.`);
  if (t.reconciles.length) lines.push(`Reconciles: replies "applied": true|false for the most recent call of ${t.reconciles.join(', ')} with matching arguments.`);
  return lines.join('\n');
}

/**
 * The function definitions sent with every request.
 *
 * @example
 * toolDefinitions(view.tools, 'plain')[0] // { type: 'function', function: { name, description, parameters } }
 */
export function toolDefinitions(tools: readonly ToolView[], variant: Variant): FunctionTool[] {
  return tools.map((t) => {
    const description = variant === 'aware' ? [t.description, annotation(t)].filter(Boolean).join('\n') : t.description;
    return {
      type: 'function',
      function: {
        name: t.name,
        ...(description ? { description } : {}),
        parameters: { type: 'object', properties: t.parameters.properties, required: t.parameters.required },
      },
    };
  });
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function matchesType(v: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return typeOf(v) === 'object';
    case 'null':
      return v === null;
    default:
      return true; // a type we do not check is not the model's fault
  }
}

/**
 * What is wrong with a model's arguments for a tool: not an object, a required parameter
 * missing, a value of the wrong primitive type or outside its enum. Empty when fine.
 *
 * @example
 * checkArgs(sendEmail, { to: 42 }) // ['"to" must be a string, got number']
 */
export function checkArgs(tool: ToolView, args: unknown): string[] {
  if (typeOf(args) !== 'object') return [`arguments must be a JSON object, got ${typeOf(args)}`];
  const a = args as Record<string, unknown>;
  const problems: string[] = [];
  for (const r of tool.parameters.required) if (!(r in a)) problems.push(`missing required parameter "${r}"`);
  for (const [k, v] of Object.entries(a)) {
    const schema = tool.parameters.properties[k];
    if (!schema) continue;
    const declared = schema.type;
    const types = Array.isArray(declared) ? declared.map(String) : typeof declared === 'string' ? [declared] : [];
    if (types.length && !types.some((t) => matchesType(v, t))) {
      problems.push(`"${k}" must be ${types.length > 1 ? `one of ${types.join(' | ')}` : `a${/^[aeiou]/.test(types[0] ?? '') ? 'n' : ''} ${types[0]}`}, got ${typeOf(v)}`);
      continue;
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
      problems.push(`"${k}" must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
    }
  }
  return problems;
}
