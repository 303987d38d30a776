/// <reference types="node" preserve="true" />
// oneway's declarations use Node's types (streams, process.env): consumers get them without listing "node" in "types".
/**
 * `oneway/agents`: what an agent integration needs, decided and checked (api/oneway-agents.api.md,
 * `npm run check:api`). A scenario served as an MCP server (each session one recorded, scored run:
 * `oneway serve`), an agent process evaluated through that server (`oneway eval --agent-cmd`, and
 * the environment it gets), the adapters for agent frameworks' approval steps (`needsApproval`,
 * `askHuman`), and the mapping between oneway's tool classes and MCP or OpenAI tool definitions
 * (`oneway export` / `oneway import`). How the server is built (its tools, results, channels) is
 * internal.
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
// Serving a scenario to agents, and evaluating an agent process (the environment it is started with).
export { serveHttp, serveStdio, type HttpServing, type ServeOptions } from './features/mcp/serve.ts';
export { agentPlanner, AGENT_ENV, type AgentHandle, type AgentOptions } from './features/mcp/agent.ts';
// A framework's approval step: which served tools wait for a sign-off, and asking the scenario's scripted human.
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
export { DEFAULT_BATCH_WINDOW_MS, DENIED_BY_HUMAN } from './features/mcp/channel.ts';
// Tool definitions: a scenario's tools as MCP or OpenAI definitions, and MCP tools as oneway declarations.
export { exportMcp, exportOpenAi } from './features/convert/export.ts';
export {
  importMcpTools,
  type ImportOptions,
  type ImportResult,
  type ImportedTool,
} from './features/convert/import-mcp.ts';
export {
  toMcpTool,
  classFromHints,
  toolsListOf,
  type McpTool,
  type McpAnnotations,
  type McpToolSource,
  type McpVerdict,
} from './features/convert/mcp.ts';
export { toOpenAiFunction, type OpenAiFunction, type OpenAiToolSource } from './features/convert/openai.ts';
