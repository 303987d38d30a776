/// <reference types="node" preserve="true" />
// oneway's declarations use Node's types (streams, process.env): consumers get them without listing "node" in "types".
/**
 * `oneway/agents`: what exists for MCP agents today. A scenario served as an MCP server (each
 * session one recorded, scored run: `oneway serve`), an agent process evaluated through that
 * server (`oneway eval --agent-cmd`), and the mapping between oneway's tool classes and MCP or
 * OpenAI tool definitions (`oneway export` / `oneway import`), and the adapters for agent frameworks'
 * approval steps (`needsApproval`, `askHuman`: see harness/features/mcp/approvals.ts).
 *
 * @example
 * import { loadScenarioFile } from 'oneway';
 * import { serveHttp } from 'oneway/agents';
 * const loaded = loadScenarioFile('scenarios/payout.yaml');
 * if (!loaded.ok) throw new Error('the scenario has problems');
 * const scenario = { scenario: loaded.value.scenario, file: 'scenarios/payout.yaml' };
 * const serving = await serveHttp({ scenario, outDir: 'reports/serve', name: 'my-agent', seed: 1, transport: 'msw', maxTurns: 50, decisionTimeoutMs: 300_000 });
 * // point the agent at serving.url; each MCP session is one run
 * const results = await serving.close();
 */
export {
  serveHttp,
  serveStdio,
  DEFAULT_AGENT_NAME,
  type HttpServing,
  type ServeOptions,
} from './features/mcp/serve.ts';
export {
  agentPlanner,
  AGENT_ENV,
  DEFAULT_AGENT_COMMAND_NAME,
  type AgentHandle,
  type AgentOptions,
} from './features/mcp/agent.ts';
export { scenarioSurface, taskText, type ScenarioSurface } from './features/mcp/server.ts';
export {
  servedTool,
  finishTool,
  finishToolName,
  FINISH_TOOL,
  SERVED_META,
  APPROVAL_TOOL,
  approvalTool,
  approvalToolName,
} from './features/mcp/tools.ts';
export {
  needsApproval,
  servedClass,
  askHuman,
  type ServedToolLike,
  type ApprovalClass,
  type NeedsApprovalOptions,
  type ToolCaller,
  type HumanAnswer,
} from './features/mcp/approvals.ts';
export { DEFAULT_BATCH_WINDOW_MS, DENIED_BY_HUMAN, type ChannelOptions } from './features/mcp/channel.ts';
export { toToolResult, errorResult } from './features/mcp/result.ts';
export { exportMcp, exportOpenAi, EXPORT_FORMATS, type ExportFormat } from './features/convert/export.ts';
export {
  importMcpTools,
  scenarioId,
  type ImportOptions,
  type ImportResult,
  type ImportedTool,
} from './features/convert/import-mcp.ts';
export {
  toMcpTool,
  classFromHints,
  toolsListOf,
  META_CLASS,
  META_COMPENSATION,
  META_PRECONDITIONS,
  META_APPROVAL,
  META_KIND,
  type McpTool,
  type McpAnnotations,
  type McpToolSource,
  type McpVerdict,
} from './features/convert/mcp.ts';
export { toOpenAiFunction, classNote, type OpenAiFunction, type OpenAiToolSource } from './features/convert/openai.ts';
