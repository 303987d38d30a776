/**
 * `oneway guard` in front of the real @modelcontextprotocol/server-filesystem: what the guard
 * knows is what it observed (a read establishes that the file was read, which an overwrite
 * requires), tools the file does not declare are refused, and recover's checklist, from the
 * journal alone, says what happened to which file and that nothing can undo it. The same from an
 * SDK client over Streamable HTTP, with the guard as a command serving `--listen`.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { main as recover } from '../../harness/cli/recover.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import {
  FILESYSTEM_SERVER,
  FILESYSTEM_TOOLS as FS_TOOLS,
  listeningFilesystemGuard,
  nodeServer,
  outcomes,
  textOf,
  toolsAt,
  useGuard,
} from './helpers.ts';

const startGuard = useGuard();

describe('oneway guard in front of server-filesystem', () => {
  it('refuses an overwrite until the file was read through it, refuses undeclared tools, and journals what recover must respond to', async () => {
    const dir = realpathSync(tempDir('oneway-guard-fs-'));
    const files = join(dir, 'files');
    mkdirSync(files);
    const a = join(files, 'a.txt');
    const b = join(files, 'b.txt');
    writeFileSync(a, 'alpha');
    const journal = join(dir, 'journal.jsonl');
    const guard = await startGuard({
      tools: toolsAt(FS_TOOLS),
      toolsFile: FS_TOOLS,
      target: nodeServer(FILESYSTEM_SERVER, [files]),
      journal,
    });
    const { client } = guard;

    const blind = await client.callTool({ name: 'write_file', arguments: { path: a, content: 'beta' } });
    expect(textOf(blind)).toContain(`refused by oneway guard: missing preconditions: file_read(path=${a})`);
    expect(textOf(blind)).toContain(`what is missing: file_read(path=${a})`);
    expect(readFileSync(a, 'utf8')).toBe('alpha');

    const read = await client.callTool({ name: 'read_text_file', arguments: { path: a } });
    expect(read.structuredContent).toEqual({ content: 'alpha' });
    const write = await client.callTool({ name: 'write_file', arguments: { path: a, content: 'beta' } });
    expect(write.isError).toBeFalsy();
    expect(readFileSync(a, 'utf8')).toBe('beta');

    const undeclared = await client.callTool({ name: 'create_directory', arguments: { path: join(files, 'new') } });
    expect(textOf(undeclared)).toMatch(/^refused by oneway guard: create_directory is not declared in the tools file/);
    expect(existsSync(join(files, 'new'))).toBe(false);

    const moved = await client.callTool({ name: 'move_file', arguments: { source: a, destination: b } });
    expect(moved.isError).toBeFalsy();
    expect(existsSync(a)).toBe(false);
    await guard.close();

    expect(outcomes(journal).map((c) => [c.tool, c.status])).toEqual([
      ['write_file', 'blocked'],
      ['read_text_file', 'ok'],
      ['write_file', 'ok'],
      ['create_directory', 'blocked'],
      ['move_file', 'ok'],
    ]);
    // Wide enough that no checklist line wraps (recover wraps to the terminal's width).
    const checklist = await runCli(recover, [journal], process.cwd(), { NO_COLOR: '1', COLUMNS: '1000' });
    expect(checklist.code).toBe(0);
    expect(checklist.stdout).toContain('2 effects, newest first: 2 to respond to (no compensation); 2 open');
    expect(checklist.stdout).toContain(`args: source=${a}, destination=${b}`);
    // Nothing to issue against the server: recovery says so, and exits 1 (something is left to a human).
    const applied = await runCli(recover, [
      journal,
      '--apply',
      `--tools=${FS_TOOLS}`,
      '--',
      process.execPath,
      FILESYSTEM_SERVER,
      files,
    ]);
    expect(applied.code).toBe(1);
    expect(applied.stdout).toContain('✗ step 5 move_file: not issued: no compensation exists');
    expect(applied.stdout).toContain('✗ step 3 write_file: not issued: no compensation exists');
    expect(applied.stdout).toContain('NOT DONE: 2 items could not be issued or failed');
    expect(existsSync(b)).toBe(true);
  });
});

describe('oneway guard --listen in front of server-filesystem', () => {
  it('serves an SDK client over Streamable HTTP: lists, refuses the blind overwrite, passes it after a read, journals', async () => {
    const { a, journal, child, exited, url, stderr } = await listeningFilesystemGuard('oneway-guard-fs-http-');
    try {
      const client = new Client({ name: 'agent', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['read_text_file', 'write_file']));
      const blind = await client.callTool({ name: 'write_file', arguments: { path: a, content: 'beta' } });
      expect(textOf(blind)).toContain(`missing preconditions: file_read(path=${a})`);
      expect(readFileSync(a, 'utf8')).toBe('alpha');
      const read = await client.callTool({ name: 'read_text_file', arguments: { path: a } });
      expect(read.structuredContent).toEqual({ content: 'alpha' });
      const write = await client.callTool({ name: 'write_file', arguments: { path: a, content: 'beta' } });
      expect(write.isError, textOf(write)).toBeFalsy();
      expect(readFileSync(a, 'utf8')).toBe('beta');
      await client.close();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, stderr()).toBe(0);
    expect(outcomes(journal).map((c) => [c.tool, c.status])).toEqual([
      ['write_file', 'blocked'],
      ['read_text_file', 'ok'],
      ['write_file', 'ok'],
    ]);
  });
});
