/**
 * The `oneway` command. As users run it, compiled (dist/), in a process of its own, where the
 * process is the point: `oneway --help` loads no engine, a command's help and `--version` reach
 * stdout with exit 0, a mistyped command exits 2. The rest in process (program.ts `run`, what the
 * bin calls), faster: every subcommand's `--help` starts no work, typos, unknown options and a
 * forgotten `--` after `npm run` exit 2 with a hint, `oneway view`. dist/ is built when missing or
 * older than the sources, by test/global-setup.ts (npm ci builds it through `prepare`).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../harness/cli/commands.ts';
import { run } from '../../harness/cli/program.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { cli } from '../helpers/compiled.ts';

const BIN = cli('oneway');

/** Runs the compiled bin in `cwd` (a fresh temporary directory by default), without npm's or CI's environment. */
function oneway(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; nodeArgs?: string[] } = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_') && k !== 'CI'));
  const r = spawnSync(process.execPath, [...(opts.nodeArgs ?? []), BIN, ...args], {
    cwd: opts.cwd ?? tempDir('oneway-bin-'),
    env: { ...env, NO_COLOR: '1', ...opts.env },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A `--import` that logs every module the process resolves ("LOADED <url>" on stderr), to show what a command loads. */
const LOG_LOADS = `data:text/javascript,${encodeURIComponent(
  'import { register } from "node:module"; register("data:text/javascript," + encodeURIComponent("export async function resolve(s, c, n) { const r = await n(s, c); process._rawDebug(\\"LOADED \\" + r.url); return r; }"));',
)}`;

describe('the compiled oneway command', () => {
  it("lists every command in --help without loading the engine (its speed is the bench's start-up row)", () => {
    const r = oneway(['--help'], { nodeArgs: ['--import', LOG_LOADS] });
    expect(r.code, r.stderr).toBe(0);
    for (const c of COMMANDS) expect(r.stdout).toContain(`  ${c.name}`);
    // Paths below dist/ only: the checkout's own path may hold any of these words (a worktree named runner).
    const loaded = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('LOADED ') && l.includes('/dist/'))
      .map((l) => l.slice(l.indexOf('/dist/')));
    expect(loaded.length).toBeGreaterThan(0);
    for (const engine of ['/runner/', '/loader/load', '/sandbox/', '/scoring/', '/llm/', '/mcp/', 'msw', 'openai']) {
      expect(loaded.filter((l) => l.includes(engine))).toEqual([]);
    }
  });

  it('loads zod, msw and the MCP SDK from the bundles in dist/vendor, never from node_modules (scripts/vendor.mjs)', () => {
    // eval's and serve's help load the engine's modules (the seal and the MCP server among them), as their runs do.
    const loaded = ['eval', 'serve'].flatMap((command) => {
      const r = oneway([command, '--help'], { nodeArgs: ['--import', LOG_LOADS] });
      expect(r.code, r.stderr).toBe(0);
      return r.stderr.split('\n').filter((l) => l.startsWith('LOADED '));
    });
    for (const bundle of ['zod.js', 'msw.js', 'msw-node.js', 'mcp-server.js', 'mcp-types.js'])
      expect(
        loaded.some((l) => l.endsWith(`/dist/vendor/${bundle}`)),
        bundle,
      ).toBe(true);
    expect(loaded.filter((l) => /\/node_modules\/(zod|msw|@mswjs|@modelcontextprotocol)\//.test(l))).toEqual([]);
  });

  it("writes a command's help and its version to stdout and exits 0; exits 2 on a mistyped command", () => {
    const cwd = tempDir('oneway-help-');
    const help = oneway(['eval', '--help'], { cwd });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: oneway eval /m);
    expect(help.stdout.trimEnd().split('\n').length).toBeGreaterThan(20); // all of it, not a first chunk
    expect(help.stderr).toBe('');
    expect(readdirSync(cwd)).toEqual([]);
    const version = oneway(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const typo = oneway(['evl']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("oneway: unknown command 'evl'");
    expect(typo.stderr).toContain('did you mean eval?');
  });
});

/** The program as the bin runs it, in this process: `cwd` a fresh temporary directory unless given. */
const inProcess = (argv: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  runCli(run, argv, opts.cwd ?? tempDir('oneway-cli-'), { NO_COLOR: '1', ...opts.env });

describe('the oneway command, in process', () => {
  it.each(COMMANDS.map((c) => [c.name]))('answers `oneway %s --help` and starts no work', async (name) => {
    const cwd = tempDir('oneway-help-');
    const r = await inProcess([name, '--help'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: oneway ${name} `, 'm'));
    expect(r.stderr).toBe('');
    expect(readdirSync(cwd)).toEqual([]); // nothing written: no reports/, no bench.json
    expect((await inProcess(['help', name])).stdout).toBe(r.stdout);
  });

  it('exits 2 with a did-you-mean on a mistyped command or option, in every command alike', async () => {
    const cmd = await inProcess(['evl']);
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toContain("oneway: unknown command 'evl'");
    expect(cmd.stderr).toContain('did you mean eval?');
    for (const [name, typo, meant] of [
      ['eval', '--planer=gated', '--planner'],
      ['fuzz', '--rusn=3', '--runs'],
      ['lint', '--quite', '--quiet'],
      ['view', '--ot=x', '--out'],
    ]) {
      const r = await inProcess([name as string, typo as string]);
      expect(r.code, `${name} ${typo}`).toBe(2);
      expect(r.stderr).toContain(`unknown option ${(typo as string).split('=')[0]}`);
      expect(r.stderr).toContain(`did you mean ${meant}?`);
    }
  });

  it('refuses a forgotten -- after npm run, before any work', async () => {
    const cwd = tempDir('oneway-npm-');
    const r = await inProcess(['eval'], { cwd, env: { npm_lifecycle_event: 'eval', npm_config_planner: 'eager' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--planner=eager went to npm');
    expect(r.stderr).toContain('hint: npm run eval -- --planner=eager');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('opens the last HTML report: prints its path (no display here), or says how to write one', async () => {
    const cwd = tempDir('oneway-view-');
    const none = await inProcess(['view'], { cwd });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--reporter=table,html');
    mkdirSync(join(cwd, 'reports', 'latest'), { recursive: true });
    writeFileSync(join(cwd, 'reports', 'latest', 'report.html'), '<!doctype html>');
    const found = await inProcess(['view'], { cwd });
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout.trim()).toBe(join('reports', 'latest', 'report.html'));
  });
});
