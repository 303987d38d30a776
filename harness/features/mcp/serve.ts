/**
 * `npm run serve`: a scenario as an MCP server. Each MCP session is one run in
 * its own sandbox, driven by the client's tool calls through a session
 * planner and recorded and scored by the same code as `npm run eval`
 * (`runJob`, `buildResults`): `DIR/results.json` and `DIR/runs/...jsonl`,
 * rewritten as each run ends. Session N is trial N, with trial N's seed.
 *
 * A run starts when its session has initialised: the client completed the
 * MCP handshake (`notifications/initialized`) or made its first tool call.
 * A request refused before that (a bad Host or Origin, a wrong content type,
 * a session beyond the limit, an initialize the transport refused, a client
 * that connects and leaves) is no run and is not recorded.
 */
import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { LintFinding } from '../../core/errors.ts';
import type { Planner } from '../../core/planner.ts';
import type { PlannerHandle } from '../../engine/runner/run.ts';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Results, RunResult } from '../../engine/results/types.ts';
import { writeResults } from '../../engine/results/write.ts';
import { buildResults, runJob, type EvalOptions, type EvalScenario } from '../../engine/runner/evaluate.ts';
import type { BatchGate } from '../../engine/runner/gate.ts';
import { seal } from '../../engine/sandbox/seal.ts';
import type { TransportName } from '../../engine/sandbox/transport.ts';
import { RunChannel, type SessionEnd } from './channel.ts';
import { LEFT_AFTER_MS, MAX_MESSAGE_BYTES, startHttpHost, type HttpHost } from './http.ts';
import { cappedStdio } from './stdio-transport.ts';
import { createRunServer, scenarioSurface, type ScenarioSurface } from './server.ts';
import { plural } from '../../util/plural.ts';

export const DEFAULT_AGENT_NAME = 'mcp';

export interface ServeOptions {
  scenario: EvalScenario;
  outDir: string;
  /** The planner name runs are recorded under (default `mcp`). */
  name?: string;
  seed: number;
  transport: TransportName;
  maxTurns: number;
  /** Real time a client may take between two tool calls before the run ends (decision_timeout). */
  decisionTimeoutMs: number;
  /** Real time the session waits for parallel sibling calls of one batch (default DEFAULT_BATCH_WINDOW_MS; 0: every call is a one-call batch). */
  batchWindowMs?: number;
  gate?: BatchGate;
  guardPolicy?: Record<string, string>;
  /** Lint errors the scenario is served with (`--allow-lint-errors`), for the results file. */
  lint?: LintFinding[];
  onRunDone?(run: RunResult): void;
}

/** One session and its run, which starts when the session has initialised. */
export interface SessionRun {
  channel: RunChannel;
  server: Server;
  /** Starts the run now, if it has not started (idempotent): its trial number and outcome. */
  start(): { trial: number; done: Promise<RunResult> };
  /** The run, once started; undefined while the session has not initialised (nothing is recorded for it). */
  readonly started: { trial: number; done: Promise<RunResult> } | undefined;
}

/**
 * How a client leaving ends its run: a finish when nothing was left
 * unanswered, otherwise an error (the client vanished mid-call).
 *
 * @example
 * clientGone(channel, 'closed the session') // { ok: true, value: 'the client closed the session' }
 */
function clientGone(channel: RunChannel, how: string): SessionEnd {
  const n = channel.unanswered;
  return n > 0
    ? { ok: false, message: `the client ${how} with ${plural(n, 'tool call')} unanswered` }
    : { ok: true, value: `the client ${how}` };
}

/** The runs of one serving process: opened per session, recorded as they end. */
export class SessionRuns {
  readonly surface: ScenarioSurface;
  private readonly opts: EvalOptions;
  private readonly runs: RunResult[] = [];
  private readonly inFlight = new Set<Promise<RunResult>>();
  private readonly started = Date.now();
  private readonly escapesBefore = seal.unattributed.length;
  private trials = 0;
  /** Runs whose session a restart fault cut: the next session to open continues the first of them. */
  private readonly awaiting: {
    resume(channel: RunChannel): void;
    started: { trial: number; done: Promise<RunResult> };
  }[] = [];

  constructor(private readonly serve: ServeOptions) {
    const name = serve.name ?? DEFAULT_AGENT_NAME;
    this.surface = scenarioSurface(serve.scenario.scenario, serve.maxTurns);
    this.opts = {
      scenarios: [serve.scenario],
      // The handle here only names the planner in results.json; each session brings its own.
      planners: [
        {
          name,
          create: () => {
            throw new Error('internal: sessions bring their own planner');
          },
        },
      ],
      trials: 0,
      seed: serve.seed,
      outDir: serve.outDir,
      transport: serve.transport,
      maxTurns: serve.maxTurns,
      decisionTimeoutMs: serve.decisionTimeoutMs,
      plannerOptions: {},
      ...(serve.gate ? { gate: serve.gate, guardPolicy: serve.guardPolicy ?? {} } : {}),
      ...(serve.lint?.length ? { lint: serve.lint } : {}),
    };
  }

  get name(): string {
    return this.opts.planners[0]?.name ?? DEFAULT_AGENT_NAME;
  }

  /**
   * A new session: its channel and MCP server. Its run (a trial number, a record) starts when the
   * client completes the handshake or first calls a tool, not before.
   */
  open(): SessionRun {
    const channel = new RunChannel(this.name, {
      ...(this.serve.batchWindowMs !== undefined ? { batchWindowMs: this.serve.batchWindowMs } : {}),
    });
    const server = createRunServer(this.surface, channel);
    // A run whose session a restart cut goes on in this one: same run, same trial, the world as it was.
    const waiting = this.awaiting.shift();
    if (waiting) {
      waiting.resume(channel);
      return { channel, server, start: () => waiting.started, started: waiting.started };
    }
    let started: { trial: number; done: Promise<RunResult> } | undefined;
    const start = () => (started ??= this.startRun(channel));
    server.oninitialized = () => void start();
    channel.onFirstUse = () => void start();
    return {
      channel,
      server,
      start,
      get started() {
        return started;
      },
    };
  }

  private startRun(channel: RunChannel): { trial: number; done: Promise<RunResult> } {
    const trial = ++this.trials;
    // Every session the run had (more than one after a restart fault); the last one drives it.
    const channels = [channel];
    const started: { trial: number; done: Promise<RunResult> } = {
      trial,
      done: Promise.resolve() as unknown as Promise<RunResult>,
    };
    let created = false;
    const handle: PlannerHandle = {
      name: this.name,
      create: (ctx) => {
        if (!created) {
          created = true;
          return channel.handle.create(ctx);
        }
        // A restart fault: the session is cut (its pending call answered with an error), and the run
        // waits for the next session the client opens, which continues it from its initial view.
        (channels.at(-1) as RunChannel).cut(
          'the session was cut by a restart fault right after this call took effect; open a new session: it continues the same run',
        );
        const next = new Promise<Planner>((resolve) => {
          this.awaiting.push({
            started,
            resume: (ch) => {
              channels.push(ch);
              resolve(ch.handle.create(ctx));
            },
          });
        });
        return { name: this.name, next: async (view) => (await next).next(view) };
      },
    };
    const endAll = (run: Parameters<RunChannel['end']>[0]) => {
      for (const ch of channels) ch.end(run);
    };
    const done: Promise<RunResult> = runJob(
      { index: trial - 1, scenario: this.serve.scenario, planner: handle, trial },
      this.opts,
    ).then(
      (run) => {
        this.runs.push(run);
        this.inFlight.delete(done);
        this.dropAwaiting(started);
        this.write();
        this.serve.onRunDone?.(run);
        endAll(run);
        return run;
      },
      (e: unknown) => {
        // runOne records every failure of a run itself; this is the harness failing around it (e.g. an unwritable --out).
        this.inFlight.delete(done);
        this.dropAwaiting(started);
        endAll({ end_reason: 'harness_error', error: `internal error: ${(e as Error).message}`, record: '(none)' });
        throw e;
      },
    );
    this.inFlight.add(done);
    done.catch(() => {}); // whoever awaits `done` sees the failure; nobody else must crash on it
    started.done = done;
    return started;
  }

  /** A run that ended (a decision timeout while it waited for a new session) no longer waits for one. */
  private dropAwaiting(started: { trial: number }): void {
    const i = this.awaiting.findIndex((a) => a.started === started);
    if (i >= 0) this.awaiting.splice(i, 1);
  }

  /** Every run so far, in trial order, as `npm run eval` would write them. */
  results(): Results {
    const runs = [...this.runs].sort((a, b) => a.trial - b.trial);
    return buildResults({ ...this.opts, trials: this.trials }, runs, {
      started: this.started,
      interrupted: this.inFlight.size > 0,
      unattributed: seal.unattributed.length - this.escapesBefore,
    });
  }

  write(): Results {
    const r = this.results();
    writeResults(this.serve.outDir, r);
    return r;
  }

  /** Waits for every run in flight to be recorded. */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
}

/**
 * Serves one session over stdio (a stdio server is one connection, so one
 * run) until the client closes stdin. Returns the results as written.
 *
 * @example
 * const results = await serveStdio(opts); // a client spawned this process
 */
export async function serveStdio(
  opts: ServeOptions,
  io: { stdin: Readable; stdout: Writable } = { stdin: process.stdin, stdout: process.stdout },
): Promise<Results> {
  seal.acquire();
  try {
    const runs = new SessionRuns(opts);
    const run = runs.open();
    // A line without a newline is not buffered for ever: past the limit it is answered and dropped.
    const { transport, stdin } = cappedStdio(
      io,
      MAX_MESSAGE_BYTES,
      (bytes) =>
        `Request too large: a line over ${MAX_MESSAGE_BYTES} bytes (${bytes} so far) was dropped; a message is at most ${MAX_MESSAGE_BYTES} bytes`,
    );
    // The SDK drops a line it cannot parse; a client deserves to hear why (JSON-RPC: id null).
    transport.onerror = (e) => {
      const parse = e instanceof SyntaxError;
      if (!parse && e.name !== 'ZodError') return;
      const message = `${parse ? 'Parse error' : 'Invalid request'}: ${e.message.slice(0, 300)}`;
      const reply = {
        jsonrpc: '2.0',
        id: null,
        error: { code: parse ? ErrorCode.ParseError : ErrorCode.InvalidRequest, message },
      };
      void transport.send(reply as unknown as JSONRPCMessage).catch(() => {});
    };
    io.stdout.on('error', () => {}); // a client that left mid-answer: the run is still recorded
    // The capped stream ends after the last line it passes on: every message is read by then.
    const gone = new Promise<void>((resolve) => {
      stdin.once('end', resolve);
      stdin.once('close', resolve);
    });
    await run.server.connect(transport);
    await gone;
    run.channel.close(clientGone(run.channel, 'closed the connection'));
    // A client that never initialised leaves no run.
    await run.started?.done;
    await run.server.close();
    return runs.write();
  } finally {
    seal.release();
  }
}

export interface HttpServing {
  url: string;
  runs: SessionRuns;
  /** Ends open sessions (their runs end with an error), waits for every run, writes and returns the results. */
  close(): Promise<Results>;
}

/**
 * Serves sessions over Streamable HTTP on 127.0.0.1 until `close()`.
 *
 * @example
 * const serving = await serveHttp({ ...opts, port: 0 });
 * console.log(serving.url); // http://127.0.0.1:41234/mcp
 */
export async function serveHttp(
  opts: ServeOptions & { port?: number; maxSessions?: number; onError?(e: Error): void },
): Promise<HttpServing> {
  seal.acquire();
  const runs = new SessionRuns(opts);
  let shuttingDown = false;
  let host: HttpHost;
  try {
    host = await startHttpHost({
      port: opts.port ?? 0,
      ...(opts.maxSessions !== undefined ? { maxSessions: opts.maxSessions } : {}),
      ...(opts.onError ? { onError: opts.onError } : {}),
      // A client that leaves between calls ends its run as over stdio: its GET stream closing is how it is seen.
      leftAfterMs: LEFT_AFTER_MS,
      open() {
        const run = runs.open();
        return {
          server: run.server,
          onClose: () =>
            run.channel.close(
              shuttingDown
                ? { ok: false, message: 'the server shut down before the session finished' }
                : clientGone(run.channel, 'closed the session'),
            ),
          onAbortedCall: () => run.channel.close({ ok: false, message: 'the client disconnected during a tool call' }),
          onLeft: () => run.channel.close(clientGone(run.channel, 'disconnected (its event stream closed)')),
          ended: () => run.channel.ended,
        };
      },
    });
  } catch (e) {
    seal.release();
    throw e;
  }
  runs.write();
  return {
    url: host.url,
    runs,
    async close() {
      shuttingDown = true;
      try {
        await host.close();
        await runs.settle();
        return runs.write();
      } finally {
        seal.release();
      }
    },
  };
}
