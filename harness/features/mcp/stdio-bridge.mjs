#!/usr/bin/env node
/**
 * An MCP server over stdio that forwards every message to a run's Streamable HTTP endpoint and back:
 * what `--agent-cmd` hands an agent whose framework only launches stdio servers
 * (`ONEWAY_MCP_COMMAND`, a command line to spawn). The agent spawns this bridge as its MCP server;
 * the bridge talks to the run's loopback endpoint. Plain JavaScript, so it needs no TypeScript loader.
 *
 *   node stdio-bridge.mjs http://127.0.0.1:PORT/mcp/RUN
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const url = process.argv[2];
if (!url) {
  process.stderr.write('usage: stdio-bridge.mjs URL (the run endpoint oneway gives in ONEWAY_MCP_URL)\n');
  process.exit(2);
}

const agentSide = new StdioServerTransport();
const runSide = new StreamableHTTPClientTransport(new URL(url));
let closing = false;
const close = async (code) => {
  if (closing) return;
  closing = true;
  await Promise.allSettled([runSide.close(), agentSide.close()]);
  process.exit(code);
};

agentSide.onmessage = (message) => {
  runSide.send(message).catch((e) => {
    process.stderr.write(`oneway bridge: the run endpoint refused a message: ${e?.message ?? e}\n`);
    // Answer a request the endpoint could not take, so the agent does not wait for ever.
    if (message && typeof message === 'object' && 'id' in message && 'method' in message) {
      void agentSide.send({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32603, message: `oneway bridge: ${e?.message ?? e}` },
      });
    }
  });
};
runSide.onmessage = (message) => void agentSide.send(message);
agentSide.onclose = () => void close(0);
runSide.onerror = (e) => process.stderr.write(`oneway bridge: ${e?.message ?? e}\n`);
process.stdin.on('end', () => void close(0));

await runSide.start();
await agentSide.start();
