/**
 * `oneway guard` from the MCP Inspector CLI (@modelcontextprotocol/inspector-cli, the version
 * docs/production.md names), in front of the real server-filesystem: the Inspector takes the first
 * `--` of its command line for itself, so the guard gets the server as `--server-cmd="..."`. The
 * Inspector starts the guard (the compiled CLI) over stdio, as it starts any server, lists the
 * tools and calls them; the guard enforces and journals as for any client. And over Streamable HTTP:
 * the Inspector's `--transport http` against a guard serving `--listen`.
 */
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../harness/cli/common.ts';
import { tempDir } from '../helpers/cli.ts';
import { cli, runNode } from '../helpers/compiled.ts';
import { FILESYSTEM_SERVER, FILESYSTEM_TOOLS, listeningFilesystemGuard, outcomes } from './helpers.ts';

const require = createRequire(import.meta.url);
const INSPECTOR_MANIFEST = require.resolve('@modelcontextprotocol/inspector-cli/package.json');
const INSPECTOR = JSON.parse(readFileSync(INSPECTOR_MANIFEST, 'utf8')) as {
  version: string;
  bin: Record<string, string>;
};
const INSPECTOR_BIN = join(dirname(INSPECTOR_MANIFEST), INSPECTOR.bin['mcp-inspector-cli'] as string);

/**
 * `mcp-inspector-cli --cli INSPECTOR_ARGS -- node oneway guard GUARD_ARGS`, its JSON answer parsed.
 * Its working directory is one below the checkout: Inspector CLI 1.0.3 finds its own package.json
 * as `../package.json` from the working directory (the whole `@modelcontextprotocol/inspector`
 * package does not have that quirk).
 */
async function inspector(inspectorArgs: string[], guardArgs: string[]): Promise<unknown> {
  return inspect([...inspectorArgs, '--', process.execPath, cli('oneway'), 'guard', ...guardArgs]);
}

/** `mcp-inspector-cli --cli ARGS`, its JSON answer parsed. */
async function inspect(args: string[]): Promise<unknown> {
  const r = await runNode([INSPECTOR_BIN, '--cli', ...args], { cwd: join(REPO_ROOT, 'test') });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as unknown;
}

describe('oneway guard from the MCP Inspector CLI', () => {
  it('lists the tools and calls them through --server-cmd, refusing a blind overwrite and journaling each call', async () => {
    expect(INSPECTOR.version).toBe('1.0.3');
    const dir = realpathSync(tempDir('oneway-guard-inspector-'));
    const files = join(dir, 'my files');
    mkdirSync(files);
    const a = join(files, 'a.txt');
    writeFileSync(a, 'alpha');
    const journal = join(dir, 'journal.jsonl');
    const guardArgs = [
      `--tools=${FILESYSTEM_TOOLS}`,
      `--journal=${journal}`,
      `--server-cmd="${process.execPath}" "${FILESYSTEM_SERVER}" "${files}"`,
    ];

    const listed = (await inspector(['--method', 'tools/list'], guardArgs)) as {
      tools: { name: string; annotations?: { destructiveHint?: boolean } }[];
    };
    const names = listed.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['read_text_file', 'write_file', 'create_directory']));
    expect(listed.tools.find((t) => t.name === 'write_file')?.annotations?.destructiveHint).toBe(true);

    const call = (tool: string, args: string[]) =>
      // --tool-arg takes every word up to the next option: it goes first, never just before the command.
      inspector(['--tool-arg', ...args, '--method', 'tools/call', '--tool-name', tool], guardArgs) as Promise<{
        isError?: boolean;
        content: { text: string }[];
      }>;
    // Each Inspector call is a guard session of its own: a blind overwrite is refused, nothing sent.
    const blind = await call('write_file', [`path=${a}`, 'content=beta']);
    expect(blind.isError).toBe(true);
    expect(blind.content[0]?.text).toContain(`missing preconditions: file_read(path=${a})`);
    expect(readFileSync(a, 'utf8')).toBe('alpha');
    const read = await call('read_text_file', [`path=${a}`]);
    expect(read.isError).toBeFalsy();
    expect(read.content[0]?.text).toBe('alpha');

    // The journal holds both calls (one guard after the other on the same journal path).
    expect(outcomes(journal).map((c) => [c.tool, c.status])).toEqual([
      ['write_file', 'blocked'],
      ['read_text_file', 'ok'],
    ]);
  });
});

describe('oneway guard --listen from the MCP Inspector CLI over Streamable HTTP', () => {
  it('serves its tools/call over --listen, each Inspector command a session of its own, and stops cleanly', async () => {
    const { a, journal, child, exited, url, stderr } = await listeningFilesystemGuard('oneway-guard-inspector-http-');
    try {
      const blind = (await inspect([
        url,
        '--transport',
        'http',
        '--tool-arg',
        `path=${a}`,
        'content=beta',
        '--method',
        'tools/call',
        '--tool-name',
        'write_file',
      ])) as { isError?: boolean; content: { text: string }[] };
      expect(blind.isError).toBe(true);
      expect(blind.content[0]?.text).toContain(`missing preconditions: file_read(path=${a})`);
      const read = (await inspect([
        url,
        '--transport',
        'http',
        '--tool-arg',
        `path=${a}`,
        '--method',
        'tools/call',
        '--tool-name',
        'read_text_file',
      ])) as { content: { text: string }[] };
      expect(read.content[0]?.text).toBe('alpha');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, stderr()).toBe(0);
    expect(outcomes(journal).map((c) => [c.tool, c.status])).toEqual([
      ['write_file', 'blocked'],
      ['read_text_file', 'ok'],
    ]);
    expect(readFileSync(a, 'utf8')).toBe('alpha');
  });
});
