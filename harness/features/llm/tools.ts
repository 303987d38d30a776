/**
 * Scenario tools as OpenAI function definitions. The aware variant's
 * definitions carry each tool's class, compensation, preconditions and what it
 * establishes; the plain variant's are what an ordinary agent framework would
 * send. (The arguments a model sends back are checked by the one rule every
 * path uses, harness/domain/rules/arguments.ts.)
 */
import type { ToolView } from '../../core/planner.ts';
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
  const undo = t.compensating_operation
    ? callText(t.compensating_operation, t.compensation_args)
    : 'no named operation';
  if (t.class === 'compensable')
    return `compensable: undone only by a new action, ${undo}${t.compensation_requires_approval ? ', which needs approval' : ''}`;
  return `reversible: undone by ${undo}`;
}

/**
 * The aware annotation of one tool: class, gate, preconditions, effects, reconciliation.
 *
 * @example
 * annotation(sendEmail) // 'Class: irreversible: ...\nPreconditions (must hold before the call): recipient_verified(email={{args.to}}); ...'
 */
function annotation(t: ToolView): string {
  const lines = [`Class: ${classText(t)}.`];
  if (t.kind === 'approval') lines.push('Approval gate: asks a human to approve; replies {"approved": true|false}.');
  if (t.kind === 'confirmation')
    lines.push(
      'Confirmation: asks the human to confirm one concrete call {tool, args}; replies {"approved": true|false}; one yes licenses one call.',
    );
  lines.push(
    `Preconditions (must hold before the call): ${t.preconditions.length ? t.preconditions.join('; ') : 'none'}.`,
  );
  if (t.establishes.length) lines.push(`Establishes on success: ${t.establishes.join('; ')}.`);
  if (t.revokes.length) lines.push(`Revokes on success: ${t.revokes.join('; ')}.`);
  if (t.reconciles.length)
    lines.push(
      `Reconciles: for every earlier call of ${t.reconciles.join(', ')} with matching arguments, replies "applied": true if any of them took effect, and "reported": which ones did.`,
    );
  if (t.reads?.length) lines.push(`Reads: replies with the rows of ${t.reads.join(', ')} that match its arguments.`);
  return lines.join('\n');
}

/** Top-level schema keywords a scenario declares besides type, properties and required (additionalProperties, ...). */
function declaredExtras(t: ToolView): Record<string, unknown> {
  const { type: _t, properties: _p, required: _r, ...rest } = t.parameters as Record<string, unknown>;
  return rest;
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
        parameters: {
          type: 'object',
          properties: t.parameters.properties,
          required: t.parameters.required,
          ...declaredExtras(t),
        },
      },
    };
  });
}
