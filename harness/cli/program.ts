/**
 * The `oneway` command: subcommands on commander (help, version, unknown commands with a
 * did-you-mean), each dispatched to its command module's `main(argv, io)`, which parses its own
 * options (util.parseArgs through common.ts's parseCli: the same unknown-option did-you-mean and
 * exit status 2 in every command). Before a command runs: a forgotten `--` after `npm run` is
 * refused, and oneway.config.* is found and read, and handed to the command, whose flags win
 * over it setting by setting.
 *
 * Light on purpose: `oneway --help` loads commander and the command table, not the engine; a
 * command's module is imported when it runs (its `--help` included, which starts no work).
 */
import { Command, CommanderError } from 'commander';
import { UsageError } from '../core/errors.ts';
import { makeChalk, useColor } from '../features/report/color.ts';
import { packageVersion } from '../util/package-root.ts';
import { terminalText } from '../util/terminal-text.ts';
import { COMMANDS, commandNamed, type CommandModule, type CommandSpec } from './commands.ts';
import { shellWord, type Io } from './common.ts';
import { helpWidth, wrapHelp } from './help.ts';
import { findConfig, loadConfig } from '../features/request/config.ts';

const AFTER = `
Every command takes --help. Options also come from oneway.config.(ts|mts|js|mjs|yaml|yml|json), found
from the working directory up to the nearest package.json; a flag always wins over its setting.

Exit status: 0 done; 1 a gate, property or expectation failed; 2 a usage or input error.
Examples:
  oneway eval                                  every scenario under ./scenarios, planner gated
  oneway eval --planner=eager,gated --reporter=table,html && oneway view
  oneway fuzz --scenario=scenarios/payout.yaml --runs=200
In a clone of oneway: npm run eval -- [options] (the "--" passes the options on to oneway).`;

/**
 * `npm run eval --planner=eager` (no `--`): npm takes `--planner` as its own config, exports it as
 * npm_config_planner and runs the script without it. Under npm, an npm_config_* variable named
 * like one of the command's options that argv does not give is that mistake.
 */
export function forgottenDashDash(
  options: CommandModule['OPTIONS'],
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): UsageError | undefined {
  if (!env.npm_lifecycle_event) return undefined;
  const given = new Set(argv.filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=')[0]));
  const lost: string[] = [];
  for (const [name, o] of Object.entries(options)) {
    if (name === 'help' || given.has(name)) continue;
    const value = env[`npm_config_${name.replace(/-/g, '_')}`];
    if (value === undefined) continue;
    lost.push(o.type === 'boolean' || value === 'true' ? `--${name}` : `--${name}=${shellWord(value)}`);
  }
  if (lost.length === 0) return undefined;
  const script = env.npm_lifecycle_event;
  return new UsageError(
    `${lost.join(' ')} went to npm, not to oneway: npm run passes a script its options only after "--"`,
    `npm run ${script} -- ${[...lost, ...argv.map(shellWord)].join(' ')}`,
  );
}

const isHelp = (argv: readonly string[]) => {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
};

/** Runs one command: its module, the `--` check, the config file (for the commands it applies to), then its main. */
export async function runCommand(spec: CommandSpec, argv: string[], io: Io): Promise<number> {
  const mod = await spec.load();
  if (isHelp(argv)) return mod.main(argv, io);
  const lost = forgottenDashDash(mod.OPTIONS, argv, io.env);
  if (lost) throw lost;
  const file = spec.config ? findConfig(io.cwd) : undefined;
  if (file && io.env.ONEWAY_DEBUG) io.stderr.write(`oneway: settings from ${file}\n`);
  return mod.main(argv, io, file ? { file, config: await loadConfig(file) } : undefined);
}

/** commander's error text ("error: unknown command 'evl'\n(Did you mean eval?)") in oneway's form. */
function oneWayError(text: string): string {
  const [first = '', ...rest] = text.trim().split('\n');
  const hint = rest.join(' ').replace(/^\((.*)\)$/, '$1');
  const message = first.replace(/^error: /, '');
  return `oneway: ${message}\n  hint: ${hint ? `${hint.charAt(0).toLowerCase()}${hint.slice(1)} ` : ''}(see oneway --help)\n`;
}

/**
 * The program, with an action per command that records the command's exit status in `code`. A
 * command gets its arguments as given (`argv` after its name): commander drops a `--` that comes
 * before any option, and `oneway guard -- COMMAND` and `oneway import mcp -- COMMAND` need it.
 */
function program(io: Io, done: (code: number) => void, argv: readonly string[] = []): Command {
  const width = helpWidth(io);
  const p = new Command('oneway')
    .usage('<command> [options]')
    .description(
      'How often do AI agents walk through a one-way door too early? Premature irreversible\ntool calls, what avoiding them costs, and how to recover.',
    )
    .version(packageVersion(), '-v, --version', 'the version')
    .helpOption('-h, --help', 'this help')
    .enablePositionalOptions()
    .showSuggestionAfterError()
    .exitOverride()
    .configureHelp({
      helpWidth: width,
      subcommandTerm: (c) =>
        c.name() === 'help' ? 'help [command]' : [c.name(), commandNamed(c.name())?.args].filter(Boolean).join(' '),
    })
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(makeChalk(useColor(io.stderr, io.env)).red(oneWayError(s))),
    })
    .helpCommand(false)
    .addHelpText('after', wrapHelp(AFTER, width));
  for (const spec of COMMANDS) {
    const cmd = p
      .command(spec.name)
      .summary(spec.summary)
      .description(spec.summary)
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(async function (this: Command) {
        const at = argv.findIndex((a) => a === spec.name || spec.aliases?.includes(a) === true);
        done(await runCommand(spec, at >= 0 ? argv.slice(at + 1) : this.args, io));
      });
    if (spec.aliases) cmd.aliases(spec.aliases);
  }
  p.command('help')
    .argument('[command]')
    .summary("a command's help (as oneway COMMAND --help)")
    .action(async (name?: string) => {
      if (name === undefined) return void p.outputHelp();
      const spec = commandNamed(name);
      if (!spec) p.error(`error: unknown command '${name}'`, { code: 'commander.unknownCommand', exitCode: 2 });
      else done(await runCommand(spec, ['--help'], io));
    });
  return p;
}

/** The `oneway` command: its exit status (0, 1 a gate or property failed, 2 usage or input error). */
export async function run(argv: string[], io: Io): Promise<number> {
  let code = 0;
  const p = program(io, (c) => (code = c), argv);
  if (argv.length === 0) {
    p.outputHelp();
    return 0;
  }
  try {
    await p.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    const c = makeChalk(useColor(io.stderr, io.env));
    if (e instanceof UsageError) {
      io.stderr.write(
        `${c.red(`oneway: ${terminalText(e.message)}`)}\n${e.hint ? `  hint: ${terminalText(e.hint)}\n` : ''}`,
      );
      return 2;
    }
    io.stderr.write(
      `${c.red(`oneway: internal error: ${terminalText(e instanceof Error ? e.message : String(e))}`)}\n  hint: this is a bug in oneway; please report it with the command and its input (ONEWAY_DEBUG=1 prints the stack)\n`,
    );
    if (io.env.ONEWAY_DEBUG && e instanceof Error && e.stack) io.stderr.write(`${e.stack}\n`);
    return 2;
  }
}
