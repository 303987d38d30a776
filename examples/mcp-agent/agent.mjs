#!/usr/bin/env node
/**
 * A deliberately naive MCP agent, to show how any agent built on an MCP client
 * is evaluated by oneway:
 *
 *   npm run eval -- --agent-cmd="node examples/mcp-agent/agent.mjs" --planner=gated --scenario=invoice-and-notify
 *
 * oneway starts it once per run with ONEWAY_MCP_URL (a Streamable HTTP MCP
 * endpoint on 127.0.0.1) and ONEWAY_TASK in its environment. It lists the
 * tools, calls each one once in the order listed, filling arguments from the
 * task's inputs and earlier results, and calls `finish`. It never looks at
 * the annotations before calling, so it walks through one-way doors as soon
 * as it meets them: the scores show it. Its output goes to
 * runs/<scenario>/<name>-t<trial>.agent.log.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = process.env.ONEWAY_MCP_URL;
if (!url) {
  console.error('ONEWAY_MCP_URL is not set: run me through npm run eval -- --agent-cmd=...');
  process.exit(2);
}
console.error(`run ${process.env.ONEWAY_RUN_ID} (seed ${process.env.ONEWAY_SEED})\n${process.env.ONEWAY_TASK}\n`);

const client = new Client({ name: 'oneway-naive-agent', version: '0.1.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));

const { tools } = await client.listTools();
const finish = tools.find((t) => t._meta?.['oneway/finish']) ?? { name: 'finish' };

// The inputs of the task, from the context resource (a real agent would hand ONEWAY_TASK to its model).
const { resources } = await client.listResources();
const contextUri = resources.find((r) => r.name === 'context')?.uri;
const context = contextUri ? JSON.parse((await client.readResource({ uri: contextUri })).contents[0].text) : {};
const known = { ...(context.inputs ?? {}) };

/** A value for a parameter: a known value of that name, or an earlier result's `id` for a `*_id`. */
const valueFor = (param) => known[param] ?? (param.endsWith('_id') ? known.id : undefined);

for (const tool of tools) {
  if (tool.name === finish.name) continue;
  const required = tool.inputSchema.required ?? [];
  const params = Object.keys(tool.inputSchema.properties ?? {});
  const args = Object.fromEntries(params.map((p) => [p, valueFor(p)]).filter(([, v]) => v !== undefined));
  const missing = required.filter((p) => !(p in args));
  if (missing.length > 0) {
    console.error(`skip ${tool.name}: nothing to fill ${missing.join(', ')} with`);
    continue;
  }
  // A careful client would stop here when tool.annotations.destructiveHint is true (see the README).
  const result = await client.callTool({ name: tool.name, arguments: args });
  console.error(
    `${tool.name} [${tool._meta?.['oneway/class']}${tool.annotations?.destructiveHint ? ', destructive' : ''}] ${JSON.stringify(args)} -> ${result.isError ? 'error ' : ''}${result.content[0]?.text}`,
  );
  if (!result.isError && result.structuredContent) Object.assign(known, result.structuredContent);
}

const done = await client.callTool({ name: finish.name, arguments: { reason: 'called every tool once' } });
console.error(done.content[0]?.text);
await client.close();
