/**
 * `oneway guard`: the evaluated declarations enforced in front of a real MCP
 * server, every effect journaled for `oneway recover`. Exit status: 0 the
 * client left (or the guard was stopped) and every call is journaled; 2 a
 * usage or input error, or a server that cannot be started.
 *
 * Over stdio, stdout is the protocol: everything else goes to stderr.
 */
import { resolve } from 'node:path';
import { formatProblem, UsageError, type Problem } from '../core/errors.ts';
import { DEFAULT_POLICY, loadPolicyFile, type Policy } from '../engine/guard/policy.ts';
import { Journal } from '../features/guard-proxy/journal.ts';
import { DEFAULT_BATCH_WINDOW_MS, GuardProxy, journalStart } from '../features/guard-proxy/proxy.ts';
import { guardHttp, guardStdio } from '../features/guard-proxy/serve.ts';
import { reviewGate } from '../features/guard-proxy/review.ts';
import { loadGuardTools, loadKnownFacts } from '../features/guard-proxy/tools-file.ts';
import { formatFinding } from '../features/lint/types.ts';
import { Upstream, type UpstreamTarget } from '../features/guard-proxy/upstream.ts';
import { splitCommand } from '../util/split-command.ts';
import { terminalText } from '../util/terminal-text.ts';
import { commandFailed, parseCli, positiveInt, processIo, type Io } from './common.ts';
import { printHelp } from './help.ts';

/** Where the journal goes when --journal is not given (relative to the working directory). */
export const DEFAULT_JOURNAL = 'oneway-journal.jsonl';

const USAGE = [
  'oneway guard --tools=FILE [options] -- COMMAND [ARGS...]',
  'oneway guard --tools=FILE [options] --server-cmd="COMMAND ARGS..."',
  'oneway guard --tools=FILE [options] --upstream=URL',
];

const OPTIONS_HELP: [string, string][] = [
  [
    '--tools=FILE',
    'the declarations to enforce (required): a scenario file, or a tools: block such as the one oneway import writes',
  ],
  ['-- COMMAND ARGS...', 'the MCP server, started over stdio with the environment of the guard; restarted if it exits'],
  [
    '--server-cmd=LINE',
    'or: the server command as one string, split into words as a shell would (quotes and backslashes honoured) but run without one; for clients that take the first -- for themselves, such as the MCP Inspector CLI',
  ],
  ['--upstream=URL', 'or: an MCP server over Streamable HTTP'],
  [
    '--policy=FILE',
    'what each class may do: reversible, compensable, irreversible, undeclared: auto | gated | approval | block (default: reversible and compensable auto, irreversible gated, undeclared block); the --guard-policy file of oneway eval',
  ],
  [
    '--journal=FILE',
    `where every call is journaled, a run record oneway recover reads (default: ${DEFAULT_JOURNAL}); an existing journal is continued, and a guard that finds it in use by another (two client windows) writes its own session journal in FILE.d/`,
  ],
  ['--facts=FILE', 'facts known before the first call: a list of facts, or facts: [...]'],
  [
    '--observe',
    'enforce nothing: forward every call and journal with it what the policy would have decided (would refuse, and why; would ask for approval); oneway audit JOURNAL scores what the agent did',
  ],
  [
    '--allow-unreviewed',
    'enforce a tools file oneway lint --as=tools finds errors in (entries still marked review: true, compensations holding a TODO, a precondition nothing establishes): without it the guard refuses to start and names them',
  ],
  [
    '--approve-cmd=CMD',
    'who approves a call held for approval (the approval rule, or a repeat of a call that applied): a shell command that gets the call as JSON on stdin and approves by exiting 0. Given, it is the only approver unless the policy says approver: client; without it, the client is asked (MCP elicitation)',
  ],
  ['--approval-timeout=MS', 'how long an approval may take before the call is refused (default: 300000)'],
  ['--call-timeout=MS', 'how long a forwarded call may take before it is an ambiguous failure (default: 60000)'],
  [
    '--batch-window=MS',
    `how long a gated call waits for calls sent with it before it is decided (default: ${DEFAULT_BATCH_WINDOW_MS}; 0: not at all)`,
  ],
  [
    '--listen=[HOST:]PORT',
    'serve MCP over Streamable HTTP at http://HOST:PORT/mcp instead of stdio; HOST is 127.0.0.1 (default) or localhost: the endpoint has no authentication, so it listens on this machine only, and checks Host and Origin',
  ],
  ['-h, --help', 'this help'],
];

const NOTES = [
  'What the guard knows is what it observed: the facts --facts gives, and those the declared effects of calls that succeeded through it established. A call passes when the rule of its class allows it: gated (and approval) calls only when they are alone (no other call of the session made with them or in flight), not a repeat of an ambiguous failure no reconciling call has answered (whatever its key, unless the tool declares key_survives_failure and the repeat carries the failed call’s own key), and their preconditions hold in what is known; a repeat of an irreversible call that applied needs an approval, as approval calls do. A failure is ambiguous unless known definite (definite_failures in the tools file). A declared idempotency_key the client left out is filled with a key derived from the call.',
  'A refused call never reaches the server: the client gets a tool error with the reason and what is missing. tools/list passes the tools of the server through with their class in annotations and _meta; tools the file does not declare are refused unless the policy says otherwise (undeclared:).',
  'Every call is journaled before it is forwarded (an intent) and after (its outcome, effects and compensation), before the reply goes back: oneway recover JOURNAL is the incident checklist, and oneway recover JOURNAL --apply [--approve] -- COMMAND issues the compensations against the server.',
  'Exit status: 0 the client left and every call is journaled; 2 a usage or input error, or a server that cannot be started.',
  'Example: oneway guard --tools=memory-tools.yaml --policy=policy.yaml --journal=memory.jsonl -- npx -y @modelcontextprotocol/server-memory',
];

/** Where option descriptions start. */
const COLUMN = 26;

/**
 * The help as written, one line per option and paragraph: `printHelp` wraps it to the terminal, as
 * every command's help is (harness/cli/help.ts).
 */
const HELP = [
  'oneway guard: the declarations you evaluated, enforced in front of a real MCP server; every effect journaled for oneway recover.',
  '',
  ...USAGE.map((u, i) => `${i === 0 ? 'Usage: ' : '       '}${u}`),
  '',
  ...OPTIONS_HELP.map(([flag, text]) => {
    const head = `  ${flag}`;
    return head.length >= COLUMN - 1 ? `${head}\n${' '.repeat(COLUMN)}${text}` : `${head.padEnd(COLUMN)}${text}`;
  }),
  ...NOTES.flatMap((n) => ['', n]),
].join('\n');

/** The options `main` parses (also read by the `oneway` command, e.g. to catch a forgotten `--` after `npm run`). */
export const OPTIONS = {
  tools: { type: 'string' },
  upstream: { type: 'string' },
  'server-cmd': { type: 'string' },
  policy: { type: 'string' },
  journal: { type: 'string' },
  facts: { type: 'string' },
  'allow-unreviewed': { type: 'boolean' },
  observe: { type: 'boolean' },
  'approve-cmd': { type: 'string' },
  'approval-timeout': { type: 'string' },
  'call-timeout': { type: 'string' },
  'batch-window': { type: 'string' },
  listen: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `--listen=[HOST:]PORT`: the port, on a loopback host only. */
function listenPort(spec: string): number {
  const m = /^(?:(.*):)?(\d+)$/.exec(spec);
  const host = m?.[1];
  if (!m || (host !== undefined && host !== '127.0.0.1' && host !== 'localhost'))
    throw new UsageError(
      `--listen takes [HOST:]PORT on this machine (HOST 127.0.0.1 or localhost), got "${spec}"`,
      'the endpoint of the guard has no authentication, so it listens on the loopback interface only; e.g. --listen=8377',
    );
  const port = Number(m[2]);
  if (port > 65535) throw new UsageError(`--listen: the port must be at most 65535, got ${port}`);
  return port;
}

function printProblems(problems: readonly Problem[], io: Io): number {
  for (const p of problems) io.stderr.write(`${formatProblem(p)}\n`);
  return 2;
}

/** Resolves when the process is asked to stop (SIGINT, SIGTERM). */
function stopSignal(): { stopped: Promise<void>; dispose(): void } {
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    stopped,
    dispose() {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const log = (m: string) => io.stderr.write(`oneway guard: ${terminalText(m)}\n`);
  try {
    // Everything after the first `--` is the server's command line, options and all.
    const dash = argv.indexOf('--');
    let command = dash >= 0 ? argv.slice(dash + 1) : undefined;
    const { values, positionals } = parseCli(dash >= 0 ? argv.slice(0, dash) : argv, OPTIONS, true, {
      command: 'oneway guard',
      what: 'the server command',
      positionals: 0,
    });
    if (values.help) {
      printHelp(io, HELP);
      return 0;
    }
    const line = values['server-cmd'];
    if (line !== undefined) {
      if (command !== undefined || values.upstream !== undefined)
        throw new UsageError(
          `give the server once: --server-cmd, -- COMMAND or --upstream=URL`,
          'e.g. --server-cmd="npx -y @modelcontextprotocol/server-memory"',
        );
      const words = splitCommand(line);
      if (!words.ok) throw new UsageError(`--server-cmd: ${words.message}`, words.hint);
      command = words.value;
    }
    if (positionals.length > 0)
      throw new UsageError(
        `unexpected argument "${positionals[0]}"`,
        'the server command goes after --, e.g. oneway guard --tools=tools.yaml -- npx -y @modelcontextprotocol/server-memory',
      );
    if (!values.tools)
      throw new UsageError('--tools is required', 'the scenario file you evaluated, or a tools: block (oneway import)');
    if (command !== undefined && command.length === 0)
      throw new UsageError('give the server command after --', 'e.g. -- npx -y @modelcontextprotocol/server-memory');
    if ((command === undefined) === (values.upstream === undefined))
      throw new UsageError(
        command === undefined
          ? 'give the MCP server: -- COMMAND ARGS..., or --upstream=URL (or --server-cmd="COMMAND ARGS...")'
          : 'give -- COMMAND or --upstream=URL, not both',
        'e.g. oneway guard --tools=tools.yaml -- npx -y @modelcontextprotocol/server-memory',
      );
    if (values.upstream !== undefined && !/^https?:\/\//i.test(values.upstream))
      throw new UsageError(
        `--upstream must be an http(s) URL, got "${values.upstream}"`,
        'e.g. --upstream=http://127.0.0.1:3001/mcp',
      );
    const port = values.listen !== undefined ? listenPort(values.listen) : undefined;
    const callTimeoutMs = positiveInt(values['call-timeout'], 'call-timeout', 60_000);
    const approvalTimeoutMs = positiveInt(values['approval-timeout'], 'approval-timeout', 300_000);
    const batchWindowMs = positiveInt(values['batch-window'], 'batch-window', DEFAULT_BATCH_WINDOW_MS, 0);

    const toolsFile = resolve(io.cwd, values.tools);
    const tools = loadGuardTools(toolsFile);
    if (!tools.ok) return printProblems(tools.problems, io);
    const scenario = tools.value.scenario;
    let policy: Policy = DEFAULT_POLICY;
    if (values.policy !== undefined) {
      const p = loadPolicyFile(resolve(io.cwd, values.policy), { production: true });
      if (!p.ok) return printProblems(p.problems, io);
      policy = p.value;
      if (policy.approver === 'cmd' && values['approve-cmd'] === undefined)
        throw new UsageError(
          `${values.policy} says approver: cmd, and no --approve-cmd is given: every call held for approval would be refused`,
          'give --approve-cmd=CMD, or remove approver: cmd from the policy',
        );
    }
    let facts: string[] = [];
    if (values.facts !== undefined) {
      const f = loadKnownFacts(resolve(io.cwd, values.facts), scenario);
      if (!f.ok) return printProblems(f.problems, io);
      facts = f.value;
    }
    // Review before enforcing: the findings of oneway lint --as=tools.
    const unreviewed = reviewGate(toolsFile, values.tools, facts);
    if (unreviewed.length > 0) {
      for (const f of unreviewed) io.stderr.write(`${formatFinding(f)}\n`);
      const tools = [...new Set(unreviewed.flatMap((f) => /^tools\[(\d+)\]/.exec(f.path)?.[1] ?? []))].map(
        (i) => scenario.tools[Number(i)]?.name ?? i,
      );
      const what = `${unreviewed.length} finding${unreviewed.length === 1 ? '' : 's'}${tools.length > 0 ? ` on ${tools.join(', ')}` : ''}`;
      if (!values['allow-unreviewed']) {
        io.stderr.write(
          `oneway guard: ${values.tools} is not reviewed (${terminalText(what)}): the guard enforces no file before it is reviewed\n    hint: fix each finding above and check with oneway lint --as=tools ${values.tools}; or start with --allow-unreviewed to enforce it as it is\n`,
        );
        return 2;
      }
      log(`enforcing ${values.tools} unreviewed (--allow-unreviewed): ${what}`);
    }

    const [cmd, ...args] = command ?? [];
    const target: UpstreamTarget =
      values.upstream !== undefined ? { url: values.upstream } : { command: cmd as string, args, cwd: io.cwd };
    const upstream = new Upstream(target, log);
    const journalPath = resolve(io.cwd, values.journal ?? DEFAULT_JOURNAL);
    const journal = Journal.open(
      journalPath,
      journalStart({ scenario, toolsFile, facts, policy, upstream: upstream.where, observe: values.observe }),
      { command: 'oneway guard', warn: log, shared: true },
    );
    const signal = stopSignal();
    try {
      const proxy = new GuardProxy({
        scenario,
        policy,
        upstream,
        journal,
        approveCmd: values['approve-cmd'],
        approvalTimeoutMs,
        callTimeoutMs,
        batchWindowMs,
        log,
        observe: values.observe,
      });
      try {
        await proxy.start();
      } catch (e) {
        throw new UsageError(
          (e as Error).message,
          values.upstream !== undefined
            ? 'check the URL serves MCP over Streamable HTTP'
            : 'check the command runs the server over stdio (try it in a shell)',
        );
      }
      const where = `${upstream.where} with ${values.tools}${values.observe ? ' (observing: every call is forwarded, what the policy would decide is journaled)' : ''}; journal ${journal.path}`;
      if (port === undefined) {
        log(`guarding ${where}`);
        await Promise.race([guardStdio(proxy), signal.stopped]);
        await proxy.settle();
        return 0;
      }
      const host = await guardHttp(proxy, port, (e) => log(e.message));
      log(`guarding ${where}; serving at ${host.url} (Ctrl-C to stop)`);
      await signal.stopped;
      await host.close();
      await proxy.settle();
      return 0;
    } finally {
      signal.dispose();
      journal.close();
      await upstream.close();
    }
  } catch (e) {
    return commandFailed(e, io, 'oneway guard');
  }
}
