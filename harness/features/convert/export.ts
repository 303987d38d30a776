/**
 * A scenario's tools in other tool formats, each with its effective class for
 * the scenario's deployment: OpenAI function definitions (class in the
 * description) or an MCP `tools/list` result (class in hints and `_meta`).
 */
import { effectiveClass } from '../../domain/rules/classes.ts';
import { staticView } from '../../engine/runner/view.ts';
import type { Scenario, ToolClass } from '../../core/scenario.ts';
import { toMcpTool, type McpTool } from './mcp.ts';
import { toOpenAiFunction, type OpenAiFunction } from './openai.ts';

export const EXPORT_FORMATS = ['openai', 'mcp'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

function classes(scenario: Scenario): Map<string, ToolClass> {
  return new Map(scenario.tools.map((t) => [t.name, effectiveClass(t, scenario.deployment)]));
}

/**
 * The scenario's tools as OpenAI function definitions, as a planner would see them
 * (preconditions with inputs and deployment filled in).
 *
 * @example
 * exportOpenAi(scenario)[0].function.name
 */
export function exportOpenAi(scenario: Scenario): OpenAiFunction[] {
  return staticView(scenario, classes(scenario), 1).tools.map(toOpenAiFunction);
}

/**
 * The scenario's tools as an MCP tools/list result.
 *
 * @example
 * exportMcp(scenario).tools[0]._meta?.['oneway/class']
 */
export function exportMcp(scenario: Scenario): { tools: McpTool[] } {
  const view = staticView(scenario, classes(scenario), 1);
  return {
    tools: view.tools.map((v) => {
      const decl = scenario.tools.find((t) => t.name === v.name);
      return toMcpTool(
        {
          ...v,
          ...(decl?.idempotent !== undefined ? { idempotent: decl.idempotent } : {}),
          compensation_requires_approval: decl?.compensation_requires_approval,
        },
        v.class,
      );
    }),
  };
}
