/** What every oneway command shares: argument parsing with clear errors, and where things live. */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../util/package-root.ts';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../core/errors.ts';
import type { ChalkInstance } from 'chalk';
import type { Results } from '../engine/results/types.ts';
import { makeChalk, useColor } from '../features/report/color.ts';
import { suggest } from '../util/did-you-mean.ts';
import { terminalText } from '../util/terminal-text.ts';

/** The oneway package (a clone, or node_modules/oneway): harness/cli/ from source, dist/harness/cli/ compiled. */
export const REPO_ROOT = PACKAGE_ROOT;
// Where scenarios come from is the same below the command line (evaluate() too): features/request/scenarios.ts.
export {
  BUNDLED_SCENARIOS,
  resolveScenarioSpecs,
  scenarioCache,
  scenarioHome,
  scenarioSpecs,
} from '../features/request/scenarios.ts';

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Keys (`eval --watch`: q quits): read only where it is a terminal. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(raw: boolean): unknown };
}

/** The real process streams: what a command uses when not run from a test. */
export const processIo = (): Io => ({
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  env: process.env,
  // Made when read: process.stdin opens the terminal or pipe, which no command but a watching one needs.
  get stdin() {
    return process.stdin;
  },
});

/** Chalk for each stream: colour only where that stream is a terminal and NO_COLOR is unset. */
export function paints(io: Io): { c: ChalkInstance; cerr: ChalkInstance } {
  return { c: makeChalk(useColor(io.stdout, io.env)), cerr: makeChalk(useColor(io.stderr, io.env)) };
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** What `parseCli` returns: each option's value by its type (named here so declarations can be emitted). */
export interface ParsedCli<O extends Options> {
  values: {
    [K in keyof O]?: O[K] extends { type: 'boolean' }
      ? O[K] extends { multiple: true }
        ? boolean[]
        : boolean
      : O[K] extends { multiple: true }
        ? string[]
        : string;
  };
  positionals: string[];
}

/**
 * A command line after `--` (`oneway guard ... -- npx -y @modelcontextprotocol/server-memory`): the
 * command that takes one (`oneway guard`) and what it is (`the server command`).
 */
export interface DashDashCommand {
  command: string;
  what: string;
  /** Arguments the command takes before the `--` (`oneway recover JOURNAL.jsonl`): the command starts after them. */
  positionals: number;
}

/**
 * util.parseArgs, with unknown or malformed options turned into a UsageError with a did-you-mean.
 * An option or argument that is a word of a command given unquoted (`--agent-cmd=npx -y pkg`), or
 * given without the `--` before it (`oneway guard --tools=t.yaml npx -y pkg`), gets the corrected
 * command line as its hint.
 */
export function parseCli<O extends Options>(
  argv: string[],
  options: O,
  allowPositionals = false,
  dashDash?: DashDashCommand,
): ParsedCli<O> {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true }) as ParsedCli<O>;
  } catch (e) {
    const msg = (e as Error).message;
    const split = splitCommand(argv, options, dashDash);
    const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(msg)?.[1];
    if (unknown) {
      const s = suggest(unknown.replace(/^-+/, '').split('=')[0] ?? '', Object.keys(options));
      throw new UsageError(
        `unknown option ${unknown}`,
        split ?? (s ? `did you mean --${s}? (see --help)` : 'see --help'),
      );
    }
    throw new UsageError(msg.replace(/\. To specify.*$/s, ''), split ?? 'see --help');
  }
}

/** A word as a POSIX shell reads it back: as it is when it is plain, else in double quotes. */
export const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `"${word.replace(/(["\\$`])/g, '\\$1')}"`;

/**
 * The hint for a command split into words by the shell: an option that takes a command (its name
 * ends in -cmd) followed by words that are not options of ours (quote it), or words before which a
 * `--` is missing (`dashDash`). Undefined when argv is not so.
 */
function splitCommand(argv: string[], options: Options, dashDash: DashDashCommand | undefined): string | undefined {
  const ours = (a: string) => /^--[^-]/.test(a) && (a.slice(2).split('=')[0] ?? '') in options;
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([\w-]+-cmd)(?:=(.*))?$/s.exec(argv[i] as string);
    if (!m || options[m[1] as string]?.type !== 'string') continue;
    const start = m[2] === undefined ? i + 2 : i + 1;
    let end = start;
    while (end < argv.length && !ours(argv[end] as string)) end++;
    if (end === start) continue;
    const words = [m[2] ?? (argv[i + 1] as string), ...argv.slice(start, end)];
    return `a command with spaces is one value: quote it, --${m[1]}=${shellWord(words.join(' '))}`;
  }
  if (!dashDash) return undefined;
  // The first word past the command's own arguments that is not an option of ours or the value of
  // one: where the command starts.
  const { tokens } = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true });
  const first = tokens.filter((t) => t.kind === 'positional')[dashDash.positionals];
  if (!first) return undefined;
  const words = argv.slice(first.index);
  return `${dashDash.what} goes after --: ${dashDash.command} ${[...argv.slice(0, first.index), '--', ...words].map(shellWord).join(' ')}`;
}

/** Values of a repeatable, comma-separated option. */
export function list(values: string[] | undefined, fallback: string[]): string[] {
  const out = (values ?? [])
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  return out.length > 0 ? out : fallback;
}

/** `--planner-opt=KEY=VALUE` values as planner options, by key (a later one wins). */
export function plannerOpts(given: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of given ?? []) {
    const i = kv.indexOf('=');
    if (i <= 0) throw new UsageError(`--planner-opt takes KEY=VALUE, got "${kv}"`);
    out[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return out;
}

export function positiveInt(raw: string | undefined, name: string, fallback: number, min = 1): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > 2 ** 31)
    throw new UsageError(`--${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

/**
 * The output format of a command that prints one report (lint, recover): `--reporter`, the name every
 * command uses (eval, merge, fuzz), or `--format`, its former name, which still works with a one-line
 * warning on stderr. Both, naming different formats, is a usage error.
 */
export function reporterOption(values: { reporter?: string; format?: string }, io: Io, fallback: string): string {
  const { reporter, format } = values;
  if (format !== undefined) {
    if (reporter !== undefined && reporter !== format)
      throw new UsageError(
        `--reporter=${terminalText(reporter)} and --format=${terminalText(format)} disagree`,
        '--format is the former name of --reporter: give --reporter only',
      );
    io.stderr.write(
      `oneway: warning: --format is deprecated: write --reporter=${terminalText(format)} (the same option, as in oneway eval)\n`,
    );
  }
  return reporter ?? format ?? fallback;
}

/**
 * A time option in milliseconds, as every time option takes. `--agent-timeout` and `--time-limit`
 * took seconds at first: a value under 1000 there is still read as seconds, with a warning that
 * says what to write instead (no one means an agent run or a fuzzing budget under one second).
 */
export function durationMs(
  raw: string | undefined,
  name: string,
  fallbackMs: number,
  warn?: (message: string) => void,
): number {
  if (raw === undefined) return fallbackMs;
  const n = positiveInt(raw, name, fallbackMs);
  if (warn && n < 1000) {
    warn(
      `--${name}=${n} is read as ${n} s (seconds, the old unit); it takes milliseconds now: write --${name}=${n * 1000}`,
    );
    return n * 1000;
  }
  return n;
}

/**
 * What every command does with an error that escapes it: a usage error is the user's (its message
 * and hint); anything else is a bug in oneway, said as such. Exit 2 either way, and never a stack
 * trace unless ONEWAY_DEBUG is set.
 */
export function commandFailed(e: unknown, io: Io, who: string): number {
  const c = paints(io).cerr;
  // Messages quote files, options and planner errors: escaped for the console (harness/util/terminal-text.ts).
  if (e instanceof UsageError) {
    io.stderr.write(
      `${c.red(`${who}: ${terminalText(e.message)}`)}\n${e.hint ? `  hint: ${terminalText(e.hint)}\n` : ''}`,
    );
    return 2;
  }
  const message = terminalText(e instanceof Error ? e.message : String(e));
  io.stderr.write(
    `${c.red(`${who}: internal error: ${message}`)}\n  hint: this is a bug in oneway; please report it with the command and its input (ONEWAY_DEBUG=1 prints the stack)\n`,
  );
  if (io.env.ONEWAY_DEBUG && e instanceof Error && e.stack) io.stderr.write(`${e.stack}\n`);
  return 2;
}

/** The gates of results said on stderr (eval and merge): each standing gate skipped as a note, each failure with ✗. */
export function sayGates(gates: Results['gates'], io: Io): void {
  const { cerr } = paints(io);
  for (const s of gates.skipped ?? []) io.stderr.write(`${cerr.yellow(`note: ${terminalText(s.message)}`)}\n`);
  for (const f of gates.failures) io.stderr.write(`${cerr.red(`✗ ${terminalText(f.message)}`)}\n`);
}

/** Runs a command's `main` when its file is the process's entry point (not when a test imports it). */
export async function runIfEntry(metaUrl: string, main: (argv: string[]) => Promise<number>): Promise<void> {
  if (process.argv[1] && resolve(process.argv[1]) === resolve(fileURLToPath(metaUrl)))
    process.exitCode = await main(process.argv.slice(2));
}
