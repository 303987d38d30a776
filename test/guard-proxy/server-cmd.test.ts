/**
 * `oneway guard --server-cmd="COMMAND ARGS..."`: the server command as one string, for clients
 * that take the first `--` for themselves (the MCP Inspector CLI passes `--server-cmd=...` through
 * as one argument). Split as a shell splits words (quotes and backslashes honoured) without a
 * shell: what a shell would expand or run is refused with a hint, never passed on as text.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as guardMain } from '../../harness/cli/guard.ts';
import { splitCommand } from '../../harness/util/split-command.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { FILESYSTEM_SERVER, FILESYSTEM_TOOLS, guardCommand, MEMORY_TOOLS, textOf } from './helpers.ts';

describe('splitting a server command without a shell', () => {
  it('splits at whitespace and honours single quotes, double quotes and backslashes', () => {
    const cases: [string, string[]][] = [
      ['npx -y @modelcontextprotocol/server-memory', ['npx', '-y', '@modelcontextprotocol/server-memory']],
      ['  node\tserver.js   --root=/a  ', ['node', 'server.js', '--root=/a']],
      [`node "my server.js" '--root=/a b'`, ['node', 'my server.js', '--root=/a b']],
      [`node --root=/a' b'"/c d"`, ['node', '--root=/a b/c d']],
      [String.raw`node a\ b "q\"uote" "back\\slash" 'it''s'`, ['node', 'a b', 'q"uote', 'back\\slash', 'its']],
      [`node '$HOME' "" x`, ['node', '$HOME', '', 'x']],
      [String.raw`node "\$5 and \n"`, ['node', '$5 and \\n']],
    ];
    for (const [line, words] of cases) expect(splitCommand(line), line).toEqual({ ok: true, value: words });
  });

  it('refuses what only a shell would do, and unclosed quotes, with a hint', () => {
    const refused: [string, RegExp][] = [
      ['', /empty/],
      ['node server.js | tee log', /unquoted "\|" is shell syntax/],
      ['node $HOME/server.js', /unquoted "\$"/],
      ['node "$HOME/server.js"', /inside double quotes would be expanded/],
      ['node `which x`', /unquoted "`"/],
      ['node *.js', /unquoted "\*"/],
      ['node ~/server.js', /unquoted "~"/],
      ['node server.js # comment', /unquoted "#"/],
      ['node a; rm -rf x', /unquoted ";"/],
      ["node 'open", /single quote is not closed/],
      ['node "open', /double quote is not closed/],
      ['MEMORY_FILE_PATH=/tmp/m.jsonl npx -y server', /sets an environment variable/],
    ];
    for (const [line, message] of refused) {
      const r = splitCommand(line);
      expect(r.ok, line).toBe(false);
      if (!r.ok) {
        expect(r.message, line).toMatch(message);
        expect(r.hint.length, line).toBeGreaterThan(0);
      }
    }
  });
});

describe('oneway guard --server-cmd', () => {
  it('starts the real server-filesystem from one string with a quoted path holding spaces, and guards it', async () => {
    const dir = tempDir('oneway-server-cmd-');
    const root = join(dir, 'my files');
    mkdirSync(root);
    writeFileSync(join(root, 'a.txt'), 'first');
    const line = `"${process.execPath}" '${FILESYSTEM_SERVER}' "${root}"`;
    const guard = await guardCommand([
      `--tools=${FILESYSTEM_TOOLS}`,
      `--journal=${join(dir, 'j.jsonl')}`,
      `--server-cmd=${line}`,
    ]);
    try {
      // The path with a space reached the server as one argument: it serves that directory.
      const read = await guard.client.callTool({ name: 'read_text_file', arguments: { path: join(root, 'a.txt') } });
      expect(read.isError).toBeFalsy();
      expect(textOf(read)).toBe('first');
      // The guard enforces as with -- COMMAND: a blind overwrite of another file is refused.
      writeFileSync(join(root, 'b.txt'), 'second');
      const blind = await guard.client.callTool({
        name: 'write_file',
        arguments: { path: join(root, 'b.txt'), content: 'x' },
      });
      expect(blind.isError).toBe(true);
      expect(textOf(blind)).toContain(`file_read(path=${join(root, 'b.txt')})`);
    } finally {
      await guard.client.close();
    }
  });

  it('is a usage error with the splitter hint for shell syntax, and with -- or --upstream as well', async () => {
    const dir = tempDir('oneway-server-cmd-');
    const pipe = await runCli(guardMain, [`--tools=${MEMORY_TOOLS}`, '--server-cmd=npx server | tee log'], dir);
    expect(pipe.code).toBe(2);
    expect(pipe.stderr).toContain('--server-cmd: an unquoted "|" is shell syntax');
    expect(pipe.stderr).toContain("sh -c '...'");
    const both = await runCli(guardMain, [`--tools=${MEMORY_TOOLS}`, '--server-cmd=npx x', '--', 'npx', 'y'], dir);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give the server once');
    const url = await runCli(
      guardMain,
      [`--tools=${MEMORY_TOOLS}`, '--server-cmd=npx x', '--upstream=http://127.0.0.1:9/mcp'],
      dir,
    );
    expect(url.code).toBe(2);
    expect(url.stderr).toContain('give the server once');
  });
});
