/**
 * The `oneway` command's pieces, from source: oneway.config.* (found, checked, read into settings
 * that the command line overrides), the forgotten `--` after `npm run`, time options in
 * milliseconds, and the project's own scenarios as the default.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { durationMs, parseCli } from '../../harness/cli/common.ts';
import { checkConfig, findConfig, loadConfig } from '../../harness/features/request/config.ts';
import { checkLineUp, configLayer, evalRequest, EVAL_DEFAULTS } from '../../harness/features/request/eval.ts';
import { mergeLayers } from '../../harness/features/request/layers.ts';
import { OPTIONS as EVAL_OPTIONS, main as evalMain } from '../../harness/cli/eval.ts';
import { main as lintMain } from '../../harness/cli/lint.ts';
import { forgottenDashDash, runCommand } from '../../harness/cli/program.ts';
import { commandNamed, COMMANDS } from '../../harness/cli/commands.ts';
import { UsageError } from '../../harness/core/errors.ts';
import { REPO_SCENARIO_CACHE, runCli, tempDir } from '../helpers/cli.ts';
import { EMAIL_YAML } from '../helpers/run.ts';
import { PassThrough } from 'node:stream';
import type { Results } from '../../harness/engine/results/types.ts';

describe('oneway.config.*', () => {
  it('is found from the working directory up to the nearest package.json, and no further', () => {
    const root = tempDir('oneway-config-');
    const project = join(root, 'project');
    const deep = join(project, 'a', 'b');
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(root, 'oneway.config.json'), '{}');
    expect(findConfig(deep)).toBeUndefined(); // outside any package: only the working directory counts
    writeFileSync(join(project, 'package.json'), '{}');
    expect(findConfig(deep)).toBeUndefined(); // the package's root is the last directory looked at
    writeFileSync(join(project, 'oneway.config.yaml'), 'trials: 2\n');
    expect(findConfig(deep)).toBe(join(project, 'oneway.config.yaml'));
  });

  it('refuses unknown settings with a did-you-mean, and wrong types', () => {
    expect(() => checkConfig({ planer: ['gated'] }, 'oneway.config.yaml')).toThrow(
      /unknown setting "planer" \(did you mean "planners"\?\)/,
    );
    expect(() => checkConfig({ trials: 'two' }, 'x.json')).toThrow(/"trials" must be a whole number/);
    expect(() => checkConfig({ llm: { modle: 'x' } }, 'x.json')).toThrow(
      /unknown setting "llm.modle" \(did you mean "llm.model"\?\)/,
    );
    expect(checkConfig({ planners: ['gated'], guard: true, fuzz: { runs: 5 } }, 'x.json')).toEqual({
      planners: ['gated'],
      guard: true,
      fuzz: { runs: 5 },
    });
  });

  it('loads YAML, JSON and ES modules (default export or a function)', async () => {
    const dir = tempDir('oneway-config-');
    writeFileSync(join(dir, 'a.yaml'), 'trials: 3\nplanners: [eager]\n');
    writeFileSync(join(dir, 'b.json'), '{"seed": 7}');
    writeFileSync(join(dir, 'c.mjs'), 'export default () => ({ reporters: ["json"] });\n');
    expect(await loadConfig(join(dir, 'a.yaml'))).toEqual({ trials: 3, planners: ['eager'] });
    expect(await loadConfig(join(dir, 'b.json'))).toEqual({ seed: 7 });
    expect(await loadConfig(join(dir, 'c.mjs'))).toEqual({ reporters: ['json'] });
  });

  it('becomes settings, paths made absolute against the file, and the command line wins setting by setting', async () => {
    const file = '/p/oneway.config.yaml';
    const config = {
      scenarios: ['scenarios/billing', 'invoice-and-notify'],
      planners: ['./planners/mine.mjs', 'gated'],
      plannerOptions: { model: 'm1', temperature: 0 },
      llm: { cache: 'replay' as const, baseUrl: 'http://localhost:11434/v1' },
      trials: 2,
      out: 'reports/ci',
      guard: 'policy.yaml',
      failOn: ['errors>0'],
      restartAt: [5, 2],
    };
    expect(configLayer({ file, config }).settings).toEqual({
      scenarios: ['/p/scenarios/billing', 'invoice-and-notify'],
      planners: ['/p/planners/mine.mjs', 'gated'],
      plannerOptions: {
        model: 'm1',
        temperature: '0',
        base_url: 'http://localhost:11434/v1',
        llm_cache: 'replay',
        llm_cache_dir: '/p/reports/llm-cache',
      },
      failOn: ['errors>0'],
      guard: '/p/policy.yaml',
      out: '/p/reports/ci',
      trials: 2,
      restartAt: [5, 2],
    });
    const flags = { kind: 'flags' as const };
    const request = await evalRequest(
      [
        configLayer({ file, config }),
        { from: flags, settings: { planners: ['eager'], trials: '5', plannerOptions: { model: 'm2' }, guard: true } },
      ],
      { cwd: '/p', env: {}, defaults: EVAL_DEFAULTS },
    );
    expect(request).toMatchObject({
      planners: ['eager'],
      trials: 5,
      guard: true,
      restartAt: [2, 5],
      outDir: '/p/reports/ci',
      scenarios: ['/p/scenarios/billing', 'invoice-and-notify'],
    });
    expect(request.plannerOptions).toMatchObject({ model: 'm2', temperature: '0', llm_cache: 'replay' });
    // scenarios and bundled are one choice: a layer that gives either replaces both.
    const merged = mergeLayers([configLayer({ file, config }), { from: flags, settings: { bundled: true } }]);
    expect(merged.settings).toMatchObject({ bundled: true });
    expect(merged.settings.scenarios).toBeUndefined();
  });

  it('names a bad value as its source does: a flag, the config file, evaluate()', async () => {
    const cwd = '/p';
    const run = (layer: Parameters<typeof evalRequest>[0][number]) =>
      evalRequest([layer], { cwd, env: {}, defaults: EVAL_DEFAULTS });
    await expect(run({ from: { kind: 'flags' }, settings: { trials: '0' } })).rejects.toThrow(
      '--trials must be an integer >= 1, got "0"',
    );
    await expect(
      run({ from: { kind: 'config', file: '/p/oneway.config.yaml' }, settings: { maxTurns: 0 } }),
    ).rejects.toThrow('"maxTurns" in oneway.config.yaml must be an integer >= 1, got 0');
    await expect(run({ from: { kind: 'api' }, settings: { restartAt: [0] } })).rejects.toThrow(
      `evaluate()'s "restartAt" takes step numbers from 1, got "0"`,
    );
    await expect(run({ from: { kind: 'flags' }, settings: { batchWindowMs: '5' } })).rejects.toThrow(
      '--batch-window applies to an agent command, and none is given',
    );
    // Checked once the planners are loaded, and still named as the config file names it.
    const request = await run({
      from: { kind: 'config', file: '/p/oneway.config.yaml' },
      settings: { baselinePlanner: 'x' },
    });
    expect(() => checkLineUp(['gated'], request)).toThrow(
      '"baselinePlanner" in oneway.config.yaml names "x", which is not among the planners (gated)',
    );
  });

  it('applies through the oneway command, with flags overriding it', async () => {
    const dir = tempDir('oneway-config-');
    writeFileSync(join(dir, 'package.json'), '{}');
    mkdirSync(join(dir, 'scenarios'));
    writeFileSync(join(dir, 'scenarios', 'email.yaml'), EMAIL_YAML);
    writeFileSync(
      join(dir, 'oneway.config.yaml'),
      'planners: [eager]\ntrials: 2\nout: out\nreporters: [json]\ntransport: inprocess\n',
    );
    const spec = commandNamed('eval');
    if (!spec) throw new Error('no eval command');
    const run = async (argv: string[]) => {
      const stdout = new PassThrough();
      let out = '';
      stdout.on('data', (d) => (out += String(d)));
      const code = await runCommand(spec, argv, {
        stdout,
        stderr: new PassThrough(),
        cwd: dir,
        env: { NO_COLOR: '1' },
      });
      return { code, results: JSON.parse(out) as { config: { planners: string[]; trials: number } } };
    };
    const a = await run([]);
    expect(a.code).toBe(0);
    expect(a.results.config).toMatchObject({ planners: ['eager'], trials: 2 });
    const b = await run(['--planner=gated', '--trials=1']);
    expect(b.results.config).toMatchObject({ planners: ['gated'], trials: 1 });
  });

  it("skips a config failOn gate naming a planner not in this evaluation, with a note; a flag's fails", async () => {
    const dir = tempDir('oneway-config-');
    writeFileSync(join(dir, 'package.json'), '{}');
    mkdirSync(join(dir, 'scenarios'));
    writeFileSync(join(dir, 'scenarios', 'email.yaml'), EMAIL_YAML);
    writeFileSync(
      join(dir, 'oneway.config.yaml'),
      "planners: [gated]\nout: out\nreporters: [json]\ntransport: inprocess\nfailOn: ['speculative:premature_irreversible_rate>0', 'errors>0']\n",
    );
    const spec = commandNamed('eval');
    if (!spec) throw new Error('no eval command');
    const run = async (argv: string[]) => {
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let out = '';
      let err = '';
      stdout.on('data', (d) => (out += String(d)));
      stderr.on('data', (d) => (err += String(d)));
      const code = await runCommand(spec, argv, { stdout, stderr, cwd: dir, env: { NO_COLOR: '1' } });
      return {
        code,
        stderr: err,
        stdout: out,
        get results() {
          return JSON.parse(out) as Results;
        },
      };
    };
    // An ad-hoc run of another planner: the speculative gate is skipped, the other one still applies.
    const adHoc = await run(['--planner=eager']);
    expect(adHoc.code).toBe(0);
    expect(adHoc.stderr).toContain(
      'note: gate speculative:premature_irreversible_rate>0 (from the config file) skipped: planner "speculative" is not in this evaluation',
    );
    expect(adHoc.results.gates).toMatchObject({
      expressions: ['speculative:premature_irreversible_rate>0', 'errors>0'],
      failures: [],
      skipped: [{ gate: 'speculative:premature_irreversible_rate>0', planner: 'speculative' }],
    });
    // With the planner in the evaluation, the gate applies (speculative sends before verifying).
    const withIt = await run(['--planner=speculative']);
    expect(withIt.code).toBe(1);
    expect(withIt.results.gates.skipped).toBeUndefined();
    expect(withIt.results.gates.failures.map((f) => f.gate)).toEqual(['speculative:premature_irreversible_rate>0']);
    // A flag names the planner for this run: not there is a usage error before any run starts (likely a typo).
    const flagged = await run([
      '--planner=eager,speculative',
      '--fail-on=speculativ:premature_irreversible_rate>0',
      '--out=typo',
    ]);
    expect(flagged.code).toBe(2);
    expect(flagged.stderr).toContain(
      'oneway: --fail-on "speculativ:premature_irreversible_rate>0" names planner "speculativ", which is not among the planners (eager, speculative)',
    );
    expect(flagged.stderr).toContain('hint: did you mean "speculative"?');
    expect(existsSync(join(dir, 'typo'))).toBe(false); // nothing ran, nothing was written
  });

  it('gives lint its scenarios when no PATHS are given', async () => {
    const dir = tempDir('oneway-config-');
    writeFileSync(join(dir, 'package.json'), '{}');
    writeFileSync(join(dir, 'email.yaml'), EMAIL_YAML);
    const config = { file: join(dir, 'oneway.config.yaml'), config: { scenarios: ['email.yaml'] } };
    const run = (argv: string[]) => runCli((a, io) => lintMain(a, io, config), argv, dir);
    expect((await run(['--reporter=json'])).stdout).toContain('"email.yaml"');
    // PATHS win over the config file's scenarios.
    expect((await run(['--reporter=json', 'nowhere.yaml'])).code).toBe(2);
  });
});

describe('a forgotten -- after npm run', () => {
  it('is the npm_config_* variable of an option argv lacks, and says what to type', () => {
    const env = {
      npm_lifecycle_event: 'eval',
      npm_config_planner: 'eager',
      npm_config_guard: 'true',
      npm_config_cache: '/root/.npm',
    };
    const e = forgottenDashDash(EVAL_OPTIONS, [], env);
    expect(e).toBeInstanceOf(UsageError);
    expect(e?.message).toContain('--planner=eager --guard went to npm');
    expect(e?.hint).toBe('npm run eval -- --planner=eager --guard');
    expect(forgottenDashDash(EVAL_OPTIONS, ['--planner=eager', '--guard'], env)).toBeUndefined();
    expect(forgottenDashDash(EVAL_OPTIONS, [], { npm_config_planner: 'eager' })).toBeUndefined(); // not under npm run
  });

  it('gives a command with spaces back quoted, so the hint can be typed as it is', () => {
    const env = { npm_lifecycle_event: 'eval', npm_config_agent_cmd: 'npx -y @modelcontextprotocol/server-memory' };
    expect(forgottenDashDash(EVAL_OPTIONS, [], env)?.hint).toBe(
      'npm run eval -- --agent-cmd="npx -y @modelcontextprotocol/server-memory"',
    );
    // `npm run eval --agent-cmd "node x.js"`: npm takes --agent-cmd as a flag and passes the command on.
    const flag = { npm_lifecycle_event: 'eval', npm_config_agent_cmd: 'true' };
    expect(forgottenDashDash(EVAL_OPTIONS, ['node x.js'], flag)?.hint).toBe('npm run eval -- --agent-cmd "node x.js"');
  });

  it('is refused before any work starts', async () => {
    const spec = commandNamed('eval');
    if (!spec) throw new Error('no eval command');
    const dir = tempDir();
    await expect(
      runCommand(spec, [], {
        stdout: new PassThrough(),
        stderr: new PassThrough(),
        cwd: dir,
        env: { npm_lifecycle_event: 'eval', npm_config_planner: 'eager' },
      }),
    ).rejects.toThrow(/went to npm/);
  });
});

describe('the command table', () => {
  it('names every command module, each with its options', async () => {
    expect(COMMANDS.map((c) => c.name)).toEqual([
      'eval',
      'fuzz',
      'recover',
      'lint',
      'import',
      'export',
      'serve',
      'guard',
      'audit',
      'bench',
      'merge',
      'view',
    ]);
    for (const c of COMMANDS) {
      const mod = await c.load();
      expect(typeof mod.main, c.name).toBe('function');
      expect(mod.OPTIONS.help, c.name).toEqual({ type: 'boolean', short: 'h' });
    }
    expect(commandNamed('eval:merge')?.name).toBe('merge');
  });
});

describe('time options', () => {
  it('take milliseconds; the old seconds (a value under 1000) still work, with a warning', () => {
    const warned: string[] = [];
    expect(durationMs('300000', 'agent-timeout', 1, (m) => warned.push(m))).toBe(300_000);
    expect(warned).toEqual([]);
    expect(durationMs('300', 'agent-timeout', 1, (m) => warned.push(m))).toBe(300_000);
    expect(warned[0]).toContain('write --agent-timeout=300000');
    expect(durationMs(undefined, 'time-limit', 5000)).toBe(5000);
  });
});

describe("the project's scenarios", () => {
  it('run by default; without a scenarios directory, nothing runs unless --bundled', async () => {
    const dir = tempDir('oneway-project-');
    writeFileSync(join(dir, 'package.json'), '{}');
    const none = await runCli(evalMain, [`--out=${tempDir()}`], dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no scenarios to run');
    expect(none.stderr).toContain('--bundled');
    // The bundled scenarios from the repository's cache of loaded scenarios (the project has no node_modules).
    const bundled = await runCli(evalMain, ['--bundled', '--list'], dir, {
      NO_COLOR: '1',
      ONEWAY_CACHE_DIR: REPO_SCENARIO_CACHE,
    });
    expect(bundled.code).toBe(0);
    expect(bundled.stdout).toContain('invoice-and-notify');
    mkdirSync(join(dir, 'scenarios'));
    writeFileSync(join(dir, 'scenarios', 'email.yaml'), EMAIL_YAML);
    const own = await runCli(evalMain, ['--list'], join(dir, 'scenarios'));
    expect(own.code).toBe(0);
    expect(own.stdout).toContain('email-tiny');
    expect(own.stdout).not.toContain('invoice-and-notify');
    // Ids resolve in the project's scenarios.
    const byId = await runCli(evalMain, ['--list', '--scenario=email-tiny'], dir);
    expect(byId.stdout).toContain('email-tiny');
  });
});

describe('a command given as words', () => {
  it('unquoted after --agent-cmd: the quoted command is the hint, whatever its first option', async () => {
    for (const [argv, quoted] of [
      [
        ['--agent-cmd=npx', '-y', '@modelcontextprotocol/server-memory'],
        '"npx -y @modelcontextprotocol/server-memory"',
      ],
      [['--agent-cmd', 'npx', '-y', 'agent', '--trials=1'], '"npx -y agent"'],
      [['--agent-cmd=node', 'x.js'], '"node x.js"'],
    ] as const) {
      const r = await runCli(evalMain, [...argv], tempDir());
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`hint: a command with spaces is one value: quote it, --agent-cmd=${quoted}`);
    }
  });

  it('without the -- before it: the command line with the -- is the hint', () => {
    const guard = { command: 'oneway guard', what: 'the server command', positionals: 0 };
    const options = { tools: { type: 'string' }, help: { type: 'boolean' } } as const;
    const hintOf = (argv: string[], d = guard) => {
      try {
        parseCli(argv, options, true, d);
      } catch (e) {
        return (e as UsageError).hint;
      }
      return 'parsed';
    };
    expect(hintOf(['--tools=t.yaml', 'npx', '-y', '@modelcontextprotocol/server-memory'])).toBe(
      'the server command goes after --: oneway guard --tools=t.yaml -- npx -y @modelcontextprotocol/server-memory',
    );
    // import takes its format first: the command starts after it.
    expect(
      hintOf(['mcp', 'npx', '-y', 'srv'], {
        command: 'oneway import',
        what: "a stdio server's command",
        positionals: 1,
      }),
    ).toBe("a stdio server's command goes after --: oneway import mcp -- npx -y srv");
    // A mistyped option of the command's own is still a did-you-mean.
    expect(hintOf(['--tols=t.yaml'])).toBe('did you mean --tools? (see --help)');
  });
});
