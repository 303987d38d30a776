/**
 * A Vercel AI SDK (`ai`) agent, evaluated by oneway. In a project with oneway installed
 * (this directory copied to agents/ai-sdk; README.md lists what to install):
 *
 *   npx oneway eval --bundled --scenario=invoice-and-notify --agent-cmd="npx tsx agents/ai-sdk/agent.ts"
 *
 * (in oneway's repository: npm run eval -- --scenario=invoice-and-notify --agent-cmd="npx tsx examples/agents/ai-sdk/agent.ts").
 *
 * oneway starts it once per run with ONEWAY_MCP_URL and ONEWAY_TASK in its environment; the model
 * is any OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY, ONEWAY_MODEL), or, with
 * ../offline.mjs loaded first, a scripted fake on loopback (README.md).
 *
 * What it shows:
 * - the AI SDK's MCP client (`@ai-sdk/mcp`) turns the served tools into AI SDK tools; tool calls of
 *   one model answer run concurrently, and oneway records them as one parallel batch;
 * - an approval step before irreversible tools, answered by the scenario's scripted human
 *   (`needsApproval` and `askHuman` from `oneway/agents`), here inside each tool's execute.
 */
import { createMCPClient } from '@ai-sdk/mcp';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, type ToolSet } from 'ai';
// The installed package's `oneway/agents` (in oneway's repository, the source: tsconfig paths, which tsx follows).
import { askHuman, needsApproval } from 'oneway/agents';

const url = process.env.ONEWAY_MCP_URL;
if (!url) throw new Error('ONEWAY_MCP_URL is not set: run me through npm run eval -- --agent-cmd=...');

const mcp = await createMCPClient({ transport: { type: 'http', url } });
const definitions = await mcp.listTools(); // keeps annotations and _meta (the class)
const all = mcp.toolsFromDefinitions(definitions) as ToolSet;
// askHuman needs a callTool: the served approval tool's own execute.
const caller = {
  callTool: ({ name, arguments: args }: { name: string; arguments?: Record<string, unknown> }) =>
    (all[name]?.execute as (a: unknown, o: unknown) => Promise<unknown>)(args ?? {}, {
      toolCallId: `oneway-${name}`,
      messages: [],
    }),
};

const tools: ToolSet = {};
for (const def of definitions.tools) {
  if (def._meta?.['oneway/finish'] || def._meta?.['oneway/approval_step']) continue; // the program ends the run
  const served = all[def.name];
  if (!served?.execute) continue;
  const execute = served.execute;
  tools[def.name] = {
    ...served,
    // This scenario's human signs off irreversible calls only (its `approvals:`).
    execute: async (args, options) => {
      if (needsApproval(def, { classes: ['irreversible'] })) {
        const { approved, text } = await askHuman(caller, def.name, args as Record<string, unknown>);
        if (!approved) return { isError: true, content: [{ type: 'text', text }] };
      }
      return execute(args, options);
    },
  } as ToolSet[string];
}

const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY ?? 'unused' });
const result = await generateText({
  model: openai.chat(process.env.ONEWAY_MODEL ?? 'gpt-4o-mini'),
  system: 'You do billing tasks with the tools given.',
  prompt: process.env.ONEWAY_TASK ?? '',
  tools,
  stopWhen: stepCountIs(10),
});
console.error(`final text: ${result.text}`);
await caller.callTool({ name: 'finish', arguments: { reason: result.text || 'done' } });
await mcp.close();
