/**
 * An OpenAI Agents SDK (`@openai/agents`) agent, evaluated by oneway. In a project with oneway installed
 * (this directory copied to agents/openai-agents; README.md lists what to install):
 *
 *   npx oneway eval --bundled --scenario=invoice-and-notify --agent-cmd="npx tsx agents/openai-agents/agent.ts"
 *
 * (in oneway's repository: npm run eval -- --scenario=invoice-and-notify --agent-cmd="npx tsx examples/agents/openai-agents/agent.ts").
 *
 * oneway starts it once per run with ONEWAY_MCP_URL (the scenario served as a Streamable HTTP MCP
 * server) and ONEWAY_TASK in its environment. The model is any OpenAI-compatible endpoint
 * (OPENAI_BASE_URL, OPENAI_API_KEY, ONEWAY_MODEL); with ../offline.mjs
 * loaded first, a scripted fake on loopback (README.md).
 *
 * What it shows:
 * - the served tools become Agents SDK function tools; calls the model makes in one answer are run
 *   concurrently by the SDK, and oneway records them as one parallel batch;
 * - the SDK's own human-in-the-loop step (`needsApproval`, interruptions, `state.approve`/`reject`)
 *   is answered by the scenario's scripted human: `needsApproval` and `askHuman` from `oneway/agents`.
 */
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from '@openai/agents';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';
// The installed package's `oneway/agents` (in oneway's repository, the source: tsconfig paths, which tsx follows).
import { askHuman, needsApproval } from 'oneway/agents';

const url = process.env.ONEWAY_MCP_URL;
if (!url) throw new Error('ONEWAY_MCP_URL is not set: run me through npm run eval -- --agent-cmd=...');
setTracingDisabled(true); // no traces leave the machine

const mcp = new Client({ name: 'openai-agents-example', version: '0.1.0' });
await mcp.connect(new StreamableHTTPClientTransport(new URL(url)));
const { tools: served } = await mcp.listTools();

// oneway's own tools (finish, the approval step) are not the model's to call here: the program ends the run.
const scenarioTools = served.filter((t) => !t._meta?.['oneway/finish'] && !t._meta?.['oneway/approval_step']);
const tools = scenarioTools.map((t) =>
  tool({
    name: t.name,
    description: t.description ?? '',
    parameters: { ...t.inputSchema, additionalProperties: true } as never, // the scenario's JSON Schema, as served
    strict: false,
    // This scenario's human signs off irreversible calls only (its `approvals:`); the default asks for compensable ones too.
    needsApproval: async () => needsApproval(t, { classes: ['irreversible'] }),
    execute: async (args) => {
      const r = (await mcp.callTool({ name: t.name, arguments: args as Record<string, unknown> })) as {
        content?: { text?: string }[];
      };
      return r.content?.[0]?.text ?? '';
    },
  }),
);

const client = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY ?? 'unused' });
const agent = new Agent({
  name: 'billing-agent',
  instructions: 'You do billing tasks with the tools given.',
  model: new OpenAIChatCompletionsModel(client as never, process.env.ONEWAY_MODEL ?? 'gpt-4o-mini'),
  tools,
});

let result = await run(agent, process.env.ONEWAY_TASK ?? '', { maxTurns: 10 });
// The SDK pauses before a tool that needs approval: ask the scenario's human, then resume.
while (result.interruptions.length > 0) {
  for (const item of result.interruptions) {
    const raw = item.rawItem as { name: string; arguments?: string };
    const { approved } = await askHuman(mcp, raw.name, JSON.parse(raw.arguments ?? '{}') as Record<string, unknown>);
    if (approved) result.state.approve(item);
    else result.state.reject(item);
  }
  result = await run(agent, result.state, { maxTurns: 10 });
}
console.error(`final output: ${String(result.finalOutput)}`);
await mcp.callTool({ name: 'finish', arguments: { reason: String(result.finalOutput ?? 'done') } });
await mcp.close();
