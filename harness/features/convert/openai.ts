/**
 * oneway tools as OpenAI function definitions. Function calling has no field
 * for side effects, so the class, the compensation and the preconditions go
 * into the description, where the model reads them.
 *
 * Pure functions: an OpenAI planner can build its `tools` from the planner
 * view with `toOpenAiFunction`.
 */
import type { ToolView } from '../../core/planner.ts';

export interface OpenAiFunction {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: { type: 'object'; properties: Record<string, unknown>; required: string[]; [k: string]: unknown };
  };
}

/** What `toOpenAiFunction` needs: a `ToolView` fits. */
export type OpenAiToolSource = Pick<
  ToolView,
  'name' | 'description' | 'class' | 'read_only' | 'parameters' | 'preconditions'
> &
  Partial<Pick<ToolView, 'compensating_operation' | 'compensation_requires_approval' | 'kind'>>;

/**
 * One sentence on what reversing the tool costs, and what must hold first.
 *
 * @example
 * classNote({ class: 'compensable', read_only: false, compensating_operation: 'void_invoice', compensation_requires_approval: true, preconditions: [] })
 * // 'Reversibility: compensable (undone only by void_invoice, a new action that needs approval).'
 */
export function classNote(t: Omit<OpenAiToolSource, 'name' | 'description' | 'parameters'>): string {
  let cls: string;
  if (t.read_only) cls = 'reversible, read-only (no side effects)';
  else if (t.class === 'reversible')
    cls = `reversible (undone by ${t.compensating_operation ?? 'its compensating operation'})`;
  else if (t.class === 'compensable') {
    cls = `compensable (undone only by ${t.compensating_operation ?? 'a compensating action'}, a new action${t.compensation_requires_approval ? ' that needs approval' : ' with its own side effects'})`;
  } else
    cls =
      'irreversible (cannot be undone: call it only once its preconditions hold, alone, and never retry it blindly after an ambiguous failure)';
  const pre = t.preconditions.length ? ` Preconditions (must hold when called): ${t.preconditions.join('; ')}.` : '';
  return `Reversibility: ${cls}.${pre}`;
}

/**
 * A tool as an OpenAI function definition, with its class in the description.
 *
 * @example
 * toOpenAiFunction(view.tools[0]).function.description // 'Email the invoice. Reversibility: irreversible (...). Preconditions ...'
 */
export function toOpenAiFunction(tool: OpenAiToolSource): OpenAiFunction {
  const desc = tool.description.trim().replace(/\s+/g, ' ');
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: desc ? `${desc} ${classNote(tool)}` : classNote(tool),
      parameters: {
        ...structuredClone(tool.parameters),
        type: 'object',
        properties: structuredClone(tool.parameters.properties),
        required: [...tool.parameters.required],
      },
    },
  };
}
