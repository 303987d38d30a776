/**
 * `npm run serve`: one scenario as an MCP server; each session is one
 * recorded, scored run. Exit status: 0 served; 2 usage or input error.
 *
 * Over stdio, stdout is the protocol: everything else goes to stderr.
 */
import { relative, resolve } from 'node:path';
import { formatProblem, UsageError } from '../core/errors.ts';
import { createGuard } from '../engine/guard/guard.ts';
import { DEFAULT_MAX_SESSIONS } from '../features/mcp/http.ts';
import { DEFAULT_BATCH_WINDOW_MS } from '../features/mcp/channel.ts';
import { DEFAULT_AGENT_NAME, serveHttp, serveStdio, type ServeOptions } from '../features/mcp/serve.ts';
import { terminalText } from '../util/terminal-text.ts';
import type { OutLock } from '../engine/results/lock.ts';
import { lockOut } from '../features/pipeline/evaluation.ts';
import { formatFinding } from '../features/lint/types.ts';
import type { ConfigFile } from '../features/request/config.ts';
import {
  configLayer,
  evalRequest,
  requestPolicy,
  requestScenarios,
  type EntryDefaults,
  type EvalSettings,
} from '../features/request/eval.ts';
import type { Layer } from '../features/request/layers.ts';
import { parseCli, positiveInt, type Io, commandFailed, processIo } from './common.ts';
import { printHelp } from './help.ts';
import { plural } from '../util/plural.ts';

const HELP = `oneway serve: a scenario as an MCP server; each MCP session is one evaluated run.

Usage: oneway serve --scenario=ID|FILE [options]

  --scenario=ID|FILE          the scenario whose tools are served (exactly one)
  --mcp=stdio|http            stdio (default): one session on stdin/stdout, served until stdin closes;
                              http: Streamable HTTP on 127.0.0.1, one run per session, until Ctrl-C
  --port=N                    the HTTP port (default 0: a free port, printed on stderr)
  --max-sessions=N            HTTP sessions open at once; an initialize beyond gets 503 (default: ${DEFAULT_MAX_SESSIONS})
  --out=DIR                   where results.json and runs/*.jsonl go, rewritten as each run ends
                              (default: reports/serve)
  --agent-name=NAME           the planner name the runs are recorded under (default: ${DEFAULT_AGENT_NAME})
  --seed=S                    base seed; session N is trial N with trial N's seed (default: 1)
  --max-turns=N               tool calls (plus finish) per run before it is stopped (default: 50)
  --decision-timeout=MS       real time a client may take between two calls (default: 300000)
  --batch-window=MS           parallel calls: calls that arrive within MS of each other, before any of
                              their results is delivered, are one batch (default: ${DEFAULT_BATCH_WINDOW_MS}; 0: one call per batch)
  --transport=msw|inprocess   how calls reach the sandbox (default: msw), as in oneway eval
  --guard                     enforce the class constraints (see oneway eval --help)
  --guard-policy=FILE         what each class may do; implies --guard
  --allow-lint-errors         serve a scenario \`oneway lint\` finds errors in (refused otherwise, exit 2);
                              results.json lists the findings ("lint")
  -h, --help                  this help

Of oneway.config.*, "guard" and "allowLintErrors" apply (a flag wins over them).
Formerly --mcp was --transport=stdio|http and --transport was --sandbox: both still work, with a
warning (an option means one thing in every command: --transport is the sandbox's, as in eval and fuzz).
Each tool carries MCP annotations from its class (destructiveHint for compensable and irreversible)
and the class, preconditions and compensation in _meta ("oneway/class", ...). Call "finish" to end a run;
a client that ends its session (stdin closed; over HTTP a DELETE, or its GET event stream closed with
nothing after it for 2 s) ends it too, as a finish (planner_error when a call was left unanswered).`;

/** The options `main` parses (also read by the `oneway` command, e.g. to catch a forgotten `--` after `npm run`). */
export const OPTIONS = {
  scenario: { type: 'string' },
  mcp: { type: 'string' },
  transport: { type: 'string' },
  port: { type: 'string' },
  'max-sessions': { type: 'string' },
  out: { type: 'string' },
  'agent-name': { type: 'string' },
  seed: { type: 'string' },
  'max-turns': { type: 'string' },
  'decision-timeout': { type: 'string' },
  'batch-window': { type: 'string' },
  sandbox: { type: 'string' },
  guard: { type: 'boolean' },
  'guard-policy': { type: 'string' },
  'allow-lint-errors': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** serve's defaults: its own --out, and a long --decision-timeout (a person or an agent is on the other side). */
const SERVE_DEFAULTS: EntryDefaults = {
  reporters: [],
  githubInActions: false,
  out: 'reports/serve',
  decisionTimeoutMs: 300_000,
};

/** The config file's settings serve takes: the guard, and allowLintErrors. */
function serveConfigLayer(cf: ConfigFile): Layer<EvalSettings> {
  const { settings, from } = configLayer(cf);
  return { from, settings: { guard: settings.guard, allowLintErrors: settings.allowLintErrors } };
}

export async function main(argv: string[], io: Io = processIo(), config?: ConfigFile): Promise<number> {
  let lock: OutLock | undefined;
  try {
    const { values } = parseCli(argv, OPTIONS);
    if (values.help) {
      printHelp(io, HELP);
      return 0;
    }
    // --transport means one thing in every command: how calls reach the sandbox; the MCP side is --mcp.
    // Their former names (--transport=stdio|http, --sandbox) still work, with a warning.
    const warn = (m: string) => io.stderr.write(`oneway: warning: ${m}\n`);
    let mcp = values.mcp;
    let transport = values.transport;
    if (transport === 'stdio' || transport === 'http') {
      warn(
        `--transport=${transport} is now --mcp=${transport} (--transport is how calls reach the sandbox, as in oneway eval)`,
      );
      mcp ??= transport;
      transport = undefined;
    }
    if (values.sandbox !== undefined) {
      warn(`--sandbox=${values.sandbox} is now --transport=${values.sandbox}, as in oneway eval`);
      transport ??= values.sandbox;
    }
    const mode = mcp ?? 'stdio';
    if (mode !== 'stdio' && mode !== 'http') throw new UsageError(`--mcp must be stdio or http, got "${mode}"`);
    if (values.port !== undefined && mode !== 'http') throw new UsageError('--port applies to --mcp=http');
    const port = positiveInt(values.port, 'port', 0, 0);
    if (port > 65535) throw new UsageError(`--port must be at most 65535, got ${port}`);
    if (values['max-sessions'] !== undefined && mode !== 'http')
      throw new UsageError('--max-sessions applies to --mcp=http');
    const maxSessions = positiveInt(values['max-sessions'], 'max-sessions', DEFAULT_MAX_SESSIONS);
    if (!values.scenario)
      throw new UsageError('--scenario is required', 'e.g. oneway serve --scenario=invoice-and-notify');
    const name = values['agent-name'] ?? DEFAULT_AGENT_NAME;
    if (!/^[A-Za-z0-9._-]{1,80}$/.test(name))
      throw new UsageError(`--agent-name must be letters, digits, ".", "_" or "-", got "${name}"`);

    // The same request as eval's (harness/features/request/eval.ts), with serve's defaults; of the
    // config file, the guard and allowLintErrors apply here (a flag wins over them).
    const request = await evalRequest(
      [
        ...(config ? [serveConfigLayer(config)] : []),
        {
          from: { kind: 'flags' },
          settings: {
            scenarios: [values.scenario],
            seed: values.seed,
            maxTurns: values['max-turns'],
            decisionTimeoutMs: values['decision-timeout'],
            transport,
            guard: values['guard-policy'] ?? values.guard,
            out: values.out,
            allowLintErrors: values['allow-lint-errors'],
          },
        },
      ],
      { cwd: io.cwd, env: io.env, defaults: SERVE_DEFAULTS },
    );
    const scenarios = await requestScenarios(request, io.env);
    for (const p of scenarios.problems) io.stderr.write(`${formatProblem(p)}\n`);
    if (scenarios.problems.some((p) => p.code === 'lint'))
      io.stderr.write(
        'oneway: lint finds errors in the scenario; nothing was served\n  hint: `oneway lint` explains each finding; fix the scenario, or serve it anyway with --allow-lint-errors\n',
      );
    if (scenarios.problems.length > 0) return 2;
    if (scenarios.selected.length !== 1) {
      throw new UsageError(
        `--scenario must name exactly one scenario, got ${scenarios.selected.length}`,
        'one server serves one scenario; start one per scenario',
      );
    }
    const [loaded] = scenarios.selected;
    if (!loaded) return 2;
    for (const f of scenarios.lint) io.stderr.write(`${formatFinding(f)}\n`);

    const policy = await requestPolicy(request);
    if (!policy.ok) {
      for (const p of policy.problems) io.stderr.write(`${formatProblem(p)}\n`);
      return 2;
    }

    const { outDir } = request;
    const where = relative(io.cwd, outDir) || '.';
    // One server or evaluation per --out at a time: the evaluation pipeline's step (harness/features/pipeline/).
    const taken = await lockOut(outDir, 'oneway serve');
    lock = taken.lock;
    for (const m of taken.warnings) io.stderr.write(`oneway: ${terminalText(m)}\n`);
    const opts: ServeOptions = {
      scenario: {
        scenario: loaded.scenario,
        file: relative(io.cwd, loaded.file) || loaded.file,
        toolLines: loaded.toolLines,
      },
      outDir,
      name,
      seed: request.seed,
      transport: request.transport,
      maxTurns: request.maxTurns,
      decisionTimeoutMs: request.decisionTimeoutMs,
      batchWindowMs: positiveInt(values['batch-window'], 'batch-window', DEFAULT_BATCH_WINDOW_MS, 0),
      ...(policy.value ? { gate: createGuard(policy.value), guardPolicy: policy.value } : {}),
      ...(scenarios.lint.length ? { lint: scenarios.lint } : {}),
      onRunDone: (run) =>
        io.stderr.write(
          `oneway: ${run.scenario} trial ${run.trial}: ${run.end_reason}${run.error ? ` (${terminalText(run.error)})` : ''}, ${run.steps} steps, completed ${run.completed}; ${where}/${run.record}\n`,
        ),
    };

    if (mode === 'stdio') {
      await serveStdio(opts);
      io.stderr.write(`oneway: results in ${where}/results.json\n`);
      return 0;
    }
    const serving = await serveHttp({
      ...opts,
      port,
      maxSessions,
      onError: (e) => io.stderr.write(`oneway: ${terminalText(e.message)}\n`),
    });
    io.stderr.write(
      `oneway: serving ${loaded.scenario.id} at ${serving.url} (Ctrl-C to stop); results in ${where}/results.json\n`,
    );
    await new Promise<void>((done) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        done();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    const results = await serving.close();
    io.stderr.write(`oneway: ${plural(results.runs.length, 'run')} in ${where}/results.json\n`);
    return 0;
  } catch (e) {
    return commandFailed(e, io, 'oneway serve');
  } finally {
    lock?.release();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const code = await main(process.argv.slice(2));
  // stdin or a listening socket may still hold the event loop; the work is done and written.
  process.exit(code);
}
