/**
 * The tools of a live MCP server, through the official MCP SDK client: a stdio
 * command (the server runs as a child process, killed when the list is read) or
 * a Streamable HTTP URL. Lists every page (`nextCursor`), then closes cleanly.
 * What comes back goes through `toolsListOf`, as a saved tools/list would.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { toolsListOf, type McpTool } from './mcp.ts';

/** A server to ask: a command to spawn (stdio), or a Streamable HTTP endpoint. */
export type McpTarget = { command: string; args: readonly string[]; cwd?: string } | { url: string };

export interface LiveListOptions {
  /** Give up after this long, all pages included (default 60 s: `npx -y` may download the server first). */
  timeoutMs?: number;
  /** Where the child's stderr goes (default: dropped; kept for the error message when the server fails). */
  onStderr?: (text: string) => void;
  /** At most this many pages (a server whose cursor never ends; default 1000). */
  maxPages?: number;
}

export interface LiveList {
  tools: McpTool[];
  skipped: string[];
  /** The server's name and version from initialize, when it gave them. */
  server?: { name: string; version: string };
  pages: number;
}

/** Whether a command line's first word is an HTTP(S) URL rather than a command. */
export function isUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

/**
 * Connects to the server, lists its tools page by page, and closes (killing a stdio child).
 *
 * @example
 * const { tools } = await listLiveTools({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] });
 * const { tools } = await listLiveTools({ url: 'http://127.0.0.1:3001/mcp' });
 */
export async function listLiveTools(target: McpTarget, opts: LiveListOptions = {}): Promise<LiveList> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const maxPages = opts.maxPages ?? 1000;
  let stderr = '';
  let transport: Transport;
  if ('url' in target) {
    transport = new StreamableHTTPClientTransport(new URL(target.url));
  } else {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    const stdio = new StdioClientTransport({
      command: target.command,
      args: [...target.args],
      env,
      stderr: 'pipe',
      ...(target.cwd ? { cwd: target.cwd } : {}),
    });
    stdio.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      stderr = (stderr + text).slice(-4000);
      opts.onStderr?.(text);
    });
    transport = stdio;
  }
  const client = new Client({ name: 'oneway-import', version: '0.1.0' });
  const deadline = Date.now() + timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  const where = 'url' in target ? target.url : [target.command, ...target.args].join(' ');
  try {
    try {
      await client.connect(transport, { timeout: left() });
    } catch (e) {
      throw new Error(
        `cannot connect to the MCP server (${where}): ${(e as Error).message}${stderr.trim() ? `\nserver stderr:\n${stderr.trim().split('\n').slice(-10).join('\n')}` : ''}`,
      );
    }
    if (!client.getServerCapabilities()?.tools)
      throw new Error(`the MCP server (${where}) declares no tools capability`);
    const raw: unknown[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      if (pages >= maxPages)
        throw new Error(`the MCP server (${where}) kept returning a nextCursor after ${maxPages} pages`);
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: left() });
      pages++;
      raw.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined && cursor !== '');
    const list = toolsListOf({ tools: raw });
    if (!list.ok) throw new Error(`${where}: ${list.message}`);
    const info = client.getServerVersion();
    return {
      tools: list.value.tools,
      skipped: list.value.skipped,
      pages,
      ...(info ? { server: { name: info.name, version: info.version } } : {}),
    };
  } finally {
    // Closing a stdio transport ends the child (stdin closed, then SIGTERM, then SIGKILL).
    await client.close().catch(() => undefined);
  }
}
