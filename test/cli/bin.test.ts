/**
 * The compiled `oneway` command (dist/, as users run it): `--help` of the command and of every
 * subcommand answers fast and starts no work, `oneway --help` loads no engine, and typos, unknown
 * options and a forgotten `--` after `npm run` exit 2 with a hint. dist/ is built when missing or
 * older than the sources (npm ci builds it through `prepare`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../harness/cli/commands.ts';
import { tempDir } from '../helpers/cli.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'dist/harness/cli/oneway.js');

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

beforeAll(() => {
  if (
    existsSync(BIN) &&
    statSync(BIN).mtimeMs >= Math.max(newest(join(ROOT, 'harness')), newest(join(ROOT, 'planners')))
  )
    return;
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`npm run build failed:\n${built.stdout}${built.stderr}`);
}, 120_000);

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

describe('the compiled oneway command', () => {
  it("lists every command in --help without loading the engine (its speed is the bench's start-up row)", () => {
    // Logs every module the process resolves, to show what `oneway --help` loads.
    const hook = `data:text/javascript,${encodeURIComponent(
      'import { register } from "node:module"; register("data:text/javascript," + encodeURIComponent("export async function resolve(s, c, n) { const r = await n(s, c); process._rawDebug(\\"LOADED \\" + r.url); return r; }"));',
    )}`;
    const r = oneway(['--help'], { nodeArgs: ['--import', hook] });
    expect(r.code, r.stderr).toBe(0);
    for (const c of COMMANDS) expect(r.stdout).toContain(`  ${c.name}`);
    const loaded = r.stderr.split('\n').filter((l) => l.startsWith('LOADED ') && l.includes('/dist/'));
    expect(loaded.length).toBeGreaterThan(0);
    for (const engine of ['/runner/', '/loader/load', '/sandbox/', '/scoring/', '/llm/', '/mcp/', 'msw', 'openai']) {
      expect(loaded.filter((l) => l.includes(engine))).toEqual([]);
    }
  });

  it.each(COMMANDS.map((c) => [c.name]))('answers `oneway %s --help` and starts no work', (name) => {
    const cwd = tempDir('oneway-help-');
    const r = oneway([name, '--help'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: oneway ${name} `, 'm'));
    expect(r.stderr).toBe('');
    expect(readdirSync(cwd)).toEqual([]); // nothing written: no reports/, no bench.json
    expect(oneway(['help', name]).stdout).toBe(r.stdout);
  });

  it('prints its version', () => {
    const r = oneway(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('exits 2 with a did-you-mean on a mistyped command or option, in every command alike', () => {
    const cmd = oneway(['evl']);
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toContain("oneway: unknown command 'evl'");
    expect(cmd.stderr).toContain('did you mean eval?');
    for (const [name, typo, meant] of [
      ['eval', '--planer=gated', '--planner'],
      ['fuzz', '--rusn=3', '--runs'],
      ['lint', '--quite', '--quiet'],
      ['view', '--ot=x', '--out'],
    ]) {
      const r = oneway([name as string, typo as string]);
      expect(r.code, `${name} ${typo}`).toBe(2);
      expect(r.stderr).toContain(`unknown option ${(typo as string).split('=')[0]}`);
      expect(r.stderr).toContain(`did you mean ${meant}?`);
    }
  });

  it('refuses a forgotten -- after npm run, before any work', () => {
    const cwd = tempDir('oneway-npm-');
    const r = oneway(['eval'], { cwd, env: { npm_lifecycle_event: 'eval', npm_config_planner: 'eager' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--planner=eager went to npm');
    expect(r.stderr).toContain('hint: npm run eval -- --planner=eager');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('opens the last HTML report: prints its path (no display here), or says how to write one', () => {
    const cwd = tempDir('oneway-view-');
    const none = oneway(['view'], { cwd, env: { DISPLAY: '', WAYLAND_DISPLAY: '' } });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--reporter=table,html');
    mkdirSync(join(cwd, 'reports', 'latest'), { recursive: true });
    writeFileSync(join(cwd, 'reports', 'latest', 'report.html'), '<!doctype html>');
    const found = oneway(['view'], { cwd, env: { DISPLAY: '', WAYLAND_DISPLAY: '' } });
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout.trim()).toBe(join('reports', 'latest', 'report.html'));
  });
});
