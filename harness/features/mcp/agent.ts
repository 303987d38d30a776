/**
 * Any agent process as a planner (`npm run eval -- --agent-cmd="node my-agent.js"`).
 *
 * Per run: an MCP endpoint on a loopback port (with a random path, so no
 * other local process drives the run), then the command, started once with
 * the endpoint and the task in its environment (and again, after its process
 * is killed, at a restart fault: a fresh endpoint, the same task). The agent's tool calls drive
 * the run through a session planner, exactly as `npm run serve` does; the run
 * ends when the agent calls `finish`, when it exits, or when it runs out of
 * time (its processes are killed and the run ends with an error). Its stdout
 * and stderr go, redacted like every file oneway writes, to
 * `runs/<scenario>/<name>-t<trial>.agent.log`.
 *
 * When the run is over, nothing the agent started outlives it: its process
 * group and session, its descendants, and every process that carries its tag
 * in the environment (a `setsid` child that left both) are stopped, SIGTERM
 * then SIGKILL (harness/features/mcp/process-tree.ts).
 *
 * The agent runs as a child process: the seal does not reach into it (see
 * the README on running untrusted code).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Planner, PlannerContext } from '../../core/planner.ts';
import type { RunResult } from '../../engine/results/types.ts';
import { recordPath } from '../../engine/runner/evaluate.ts';
import type { PlannerHandle } from '../../engine/runner/run.ts';
import type { Scenario } from '../../core/scenario.ts';
import { redactingStream } from '../../util/secrets.ts';
import { RunChannel, type SessionEnd } from './channel.ts';
import { startHttpHost, type HttpHost } from './http.ts';
import { AGENT_TAG_ENV, killProcessesNow, stopProcesses, type AgentTree } from './process-tree.ts';
import { createRunServer, scenarioSurface, type ScenarioSurface } from './server.ts';
import { plural } from '../../util/plural.ts';

export const DEFAULT_AGENT_COMMAND_NAME = 'agent';
/** The stdio-to-HTTP bridge an agent may spawn as its MCP server (plain JavaScript: no loader needed). */
const STDIO_BRIDGE = fileURLToPath(new URL('./stdio-bridge.mjs', import.meta.url));
/** What an agent still running after its run ended gets before its process group is killed. */
const GRACE_MS = 2000;
/** Between SIGTERM and SIGKILL. */
const KILL_AFTER_MS = 1000;
/** After the agent's processes are stopped, how long its output may take to reach the log. */
const LOG_DRAIN_MS = 2000;

/** The environment an agent process is started with, besides the caller's. */
export const AGENT_ENV = {
  url: 'ONEWAY_MCP_URL',
  /** For a framework that only launches stdio MCP servers: spawn this command with these arguments (a JSON array). */
  stdioCommand: 'ONEWAY_MCP_COMMAND',
  stdioArgs: 'ONEWAY_MCP_ARGS',
  task: 'ONEWAY_TASK',
  scenario: 'ONEWAY_SCENARIO',
  runId: 'ONEWAY_RUN_ID',
  seed: 'ONEWAY_SEED',
} as const;

export interface AgentOptions {
  /** A shell command line, started once per run. */
  command: string;
  name?: string;
  /** Wall-clock limit per run, from start to exit. */
  timeoutMs: number;
  /** The evaluation's --out: agent logs go next to the run records. */
  outDir: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The scenarios the evaluation runs (the MCP tools are built from them). */
  scenarios: readonly Scenario[];
  maxTurns: number;
  /** Real time the session waits for parallel sibling calls of one batch (default DEFAULT_BATCH_WINDOW_MS; 0: every call is a one-call batch). */
  batchWindowMs?: number;
}

/** A planner handle for `evaluate()`; `runDone` must see each finished run (evaluate's `onRunDone`). */
export interface AgentHandle extends PlannerHandle {
  /** The run is recorded: answer the agent, and stop it if it does not exit by itself. */
  runDone(run: Pick<RunResult, 'scenario' | 'planner' | 'trial' | 'end_reason' | 'error' | 'record'>): void;
  /** Stops every agent still running and closes their endpoints. */
  close(): Promise<void>;
}

/** Agents not yet stopped. Their processes do not die with oneway: if oneway exits first (a second Ctrl-C), take them along. */
const running = new Set<AgentRun>();
let exitHook = false;
function killRunningOnExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const r of running) r.killNow();
  });
}

class AgentRun {
  private child: ChildProcess | undefined;
  private host: HttpHost | undefined;
  private timer: NodeJS.Timeout | undefined;
  private starting: Promise<void> | undefined;
  private exited: Promise<void> | undefined;
  /** The agent's output has all reached the log (both pipes closed). */
  private logged: Promise<void> | undefined;
  private closeLog: (() => void) | undefined;
  private tree: AgentTree | undefined;
  private killing: Promise<void> | undefined;
  private stopped = false;

  constructor(
    readonly channel: RunChannel,
    private readonly opts: AgentOptions,
    private readonly surface: ScenarioSurface,
    private readonly ctx: PlannerContext,
    private readonly name: string,
    /**
     * Started again after a restart fault: the stopping of the killed process. Its output goes on
     * in the same log once all of the killed one's is there (lines still in its pipes used to land
     * after the restart line, written over it).
     */
    private readonly restartedAfter?: Promise<void>,
  ) {}

  get logFile(): string {
    return recordPath(this.ctx.scenario, this.name, this.ctx.trial).replace(/\.jsonl$/, '.agent.log');
  }

  /** Starts the endpoint and the process, once (on the run's first decision). */
  start(): Promise<void> {
    this.starting ??= this.launch();
    return this.starting;
  }

  private async launch(): Promise<void> {
    const channel = this.channel;
    await this.restartedAfter?.catch(() => {}); // how the killed one stopped is not this one's concern
    // Every session of the agent feeds the same run: its lifetime is the process's, not a connection's.
    this.host = await startHttpHost({
      path: `/mcp/${randomUUID()}`,
      allowThroughSeal: false, // the agent is a child process; the seal never sees its requests
      open: () => ({ server: createRunServer(this.surface, channel), onClose() {}, onAbortedCall() {} }),
    });
    const log = join(this.opts.outDir, this.logFile);
    mkdirSync(dirname(log), { recursive: true });
    const fd = openSync(log, this.restartedAfter ? 'a' : 'w');
    if (this.restartedAfter)
      writeSync(fd, '\n--- oneway: the agent was killed by a restart fault and started again with the same task ---\n');
    // Through a pipe, not the file itself: the log is redacted like every file oneway writes.
    const out = redactingStream((text) => {
      try {
        writeSync(fd, text);
      } catch {
        // a full disk loses log lines, not the run
      }
    });
    const tag = randomUUID();
    this.child = spawn(this.opts.command, {
      shell: true,
      cwd: this.opts.cwd,
      // Its own session and process group, so that stopping it reaches what the command started too.
      detached: process.platform !== 'win32',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...this.opts.env,
        [AGENT_ENV.url]: this.host.url,
        [AGENT_ENV.stdioCommand]: process.execPath,
        [AGENT_ENV.stdioArgs]: JSON.stringify([STDIO_BRIDGE, this.host.url]),
        [AGENT_ENV.task]: this.surface.task,
        [AGENT_ENV.scenario]: this.ctx.scenario,
        [AGENT_ENV.runId]: `${this.ctx.scenario}/${this.name}/${this.ctx.trial}`,
        [AGENT_ENV.seed]: String(this.ctx.seed),
        [AGENT_TAG_ENV]: tag,
      },
    });
    const child = this.child;
    if (child.pid !== undefined) this.tree = { pid: child.pid, tag };
    const pipes = [child.stdout, child.stderr].filter((s) => s !== null);
    let open = pipes.length;
    let finished = false;
    this.closeLog = () => {
      if (finished) return;
      finished = true;
      for (const p of pipes) p.destroy();
      out.end();
      closeSync(fd);
    };
    this.logged = new Promise<void>((resolve) => {
      if (open === 0) resolve();
      for (const p of pipes) {
        p.setEncoding('utf8');
        p.on('data', (text: string) => out.write(text));
        p.once('close', () => {
          if (--open === 0) resolve();
        });
      }
    }).then(() => this.closeLog?.());
    killRunningOnExit();
    running.add(this);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        clearTimeout(this.timer);
        channel.close(this.exitEnd(code, signal));
        void this.host?.close().finally(resolve);
      });
      child.once('error', (e) => {
        clearTimeout(this.timer);
        channel.close({ ok: false, message: `the agent command could not start: ${e.message}` });
        void this.host?.close().finally(resolve);
      });
    });
    this.timer = setTimeout(() => {
      channel.close({
        ok: false,
        message: `the agent did not exit within ${Math.round(this.opts.timeoutMs / 1000)} s; its processes were killed (log: ${this.logFile})`,
      });
      void this.kill();
    }, this.opts.timeoutMs);
  }

  private exitEnd(code: number | null, signal: NodeJS.Signals | null): SessionEnd {
    if (code === 0) {
      const n = this.channel.unanswered;
      return n > 0
        ? { ok: false, message: `the agent exited with ${plural(n, 'tool call')} unanswered` }
        : { ok: true, value: 'the agent exited' };
    }
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    return { ok: false, message: `the agent ${how} before calling finish (log: ${this.logFile})` };
  }

  /**
   * Stops every process of the agent (the agent, its group and session, its descendants, and
   * whatever carries its tag): SIGTERM, then SIGKILL after a second. Resolves when none is left.
   */
  kill(): Promise<void> {
    const tree = this.tree;
    if (!tree) return Promise.resolve();
    this.killing ??= stopProcesses(tree, KILL_AFTER_MS).finally(() => {
      this.killing = undefined;
    });
    return this.killing;
  }

  /** SIGKILL to every process of the agent, at once (the process is exiting). */
  killNow(): void {
    if (this.tree) killProcessesNow(this.tree);
  }

  /**
   * After the run: a grace period to exit, then the agent is killed; either way, whatever it
   * left running is stopped, and its output is written to the log.
   */
  async stop(graceMs: number): Promise<void> {
    if (this.stopped) return this.exited;
    this.stopped = true;
    await this.starting?.catch(() => {});
    if (!this.exited) {
      await this.host?.close();
      return;
    }
    const grace = setTimeout(() => void this.kill(), graceMs);
    await this.exited;
    clearTimeout(grace);
    // The agent is gone; what it started (a background job, a setsid child) is not, necessarily.
    await this.kill();
    running.delete(this);
    // A process that escaped every way of finding it may still hold the pipes: do not wait for it.
    const drained = await Promise.race([
      this.logged?.then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), LOG_DRAIN_MS).unref()),
    ]);
    if (!drained) this.closeLog?.();
  }
}

/**
 * The planner handle for `--agent-cmd`.
 *
 * @example
 * const agent = agentPlanner({ command: 'node agent.mjs', timeoutMs: 300_000, outDir, cwd, env: process.env, scenarios, maxTurns: 50 });
 * await evaluate({ ...opts, planners: [agent], onRunDone: (run) => agent.runDone(run) }).finally(() => agent.close());
 */
export function agentPlanner(opts: AgentOptions): AgentHandle {
  const name = opts.name ?? DEFAULT_AGENT_COMMAND_NAME;
  const scenarios = new Map(opts.scenarios.map((s) => [s.id, s]));
  const surfaces = new Map<string, ScenarioSurface>();
  const live = new Map<string, AgentRun>();
  const key = (scenario: string, trial: number) => `${scenario}\u0000${trial}`;
  const stopping = new Set<Promise<void>>();

  return {
    name,
    create(ctx): Planner {
      const scenario = scenarios.get(ctx.scenario);
      if (!scenario) throw new Error(`internal: the agent planner was not given scenario "${ctx.scenario}"`);
      let surface = surfaces.get(scenario.id);
      if (!surface) surfaces.set(scenario.id, (surface = scenarioSurface(scenario, opts.maxTurns)));
      // A second create for the same run is a restart fault: the agent process is killed (its reply
      // was lost with it) and started again with the same task; the world keeps everything.
      const previous = live.get(key(ctx.scenario, ctx.trial));
      let stopped: Promise<void> | undefined;
      if (previous) {
        previous.channel.close({ ok: false, message: 'the agent was restarted (a restart fault)' });
        const p = (stopped = previous.stop(0)).finally(() => stopping.delete(p));
        stopping.add(p);
      }
      const channel = new RunChannel(name, {
        ...(opts.batchWindowMs !== undefined ? { batchWindowMs: opts.batchWindowMs } : {}),
      });
      const run = new AgentRun(channel, opts, surface, ctx, name, stopped);
      live.set(key(ctx.scenario, ctx.trial), run);
      const planner = channel.handle.create(ctx);
      return {
        name,
        async next(view) {
          await run.start();
          return planner.next(view);
        },
      };
    },
    runDone(result) {
      if (result.planner !== name) return;
      const run = live.get(key(result.scenario, result.trial));
      if (!run) return;
      live.delete(key(result.scenario, result.trial));
      run.channel.end(result);
      const p = run.stop(GRACE_MS).finally(() => stopping.delete(p));
      stopping.add(p);
    },
    async close() {
      const runs = [...live.values()];
      live.clear();
      for (const r of runs) r.channel.close({ ok: false, message: 'the evaluation ended' });
      await Promise.all([...runs.map((r) => r.stop(0)), ...stopping]);
    },
  };
}
