/**
 * `oneway view [DIR|FILE]`: the last HTML report, as `playwright show-report` does: prints its
 * path, and opens it in the default browser when there is a display to open it on.
 * Exit status: 0 found (and opened, or printed); 2 no report, or a usage error.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../core/errors.ts';
import { configDir } from '../features/request/layers.ts';
import type { ConfigFile } from '../features/request/config.ts';
import { commandFailed, paints, parseCli, processIo, runIfEntry, type Io } from './common.ts';
import { printHelp } from './help.ts';

/** A path from the config file, made absolute against its directory. */
const configPath = (cf: ConfigFile, p: string) => resolve(configDir(cf.file), p);

const REPORT = 'report.html';

const HELP = `oneway view: open the last HTML report.

Usage: oneway view [DIR|FILE] [options]

  DIR|FILE                   an evaluation's --out directory, or its report.html (default: --out below)
  --out=DIR                  the evaluation directory to look in first (default: "out" in oneway.config.*,
                             else reports/latest); without a report there, the newest reports/*/report.html
  --no-open                  print the path only
  -h, --help                 this help

The report is written by \`oneway eval --reporter=html\`. It opens with xdg-open (Linux, when DISPLAY or
WAYLAND_DISPLAY is set), open (macOS) or start (Windows); elsewhere (CI, SSH) the path is printed.

Exit status: 0 the report was found; 2 there is none, or a usage error.
Example: oneway eval --reporter=table,html && oneway view`;

/** The options `main` parses. */
export const OPTIONS = {
  out: { type: 'string' },
  'no-open': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const isFile = (p: string) => existsSync(p) && statSync(p).isFile();

/** The newest reports/<dir>/report.html under the working directory, if any. */
function newestReport(cwd: string): string | undefined {
  const reports = resolve(cwd, 'reports');
  if (!existsSync(reports)) return undefined;
  const found = readdirSync(reports, { withFileTypes: true })
    .filter((d) => d.isDirectory() && isFile(join(reports, d.name, REPORT)))
    .map((d) => join(reports, d.name, REPORT))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return found[0];
}

/** How to open a file in a browser here, or undefined when there is no display to open it on. */
export function opener(
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
): { command: string; args: string[] } | undefined {
  if (env.CI) return undefined;
  if (platform === 'darwin') return { command: 'open', args: [] };
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""'] };
  return env.DISPLAY || env.WAYLAND_DISPLAY ? { command: 'xdg-open', args: [] } : undefined;
}

export async function main(
  argv: string[],
  io: Io = processIo(),
  config?: ConfigFile,
  platform: NodeJS.Platform = process.platform,
): Promise<number> {
  const { c } = paints(io);
  try {
    const { values, positionals } = parseCli(argv, OPTIONS, true);
    if (values.help) {
      printHelp(io, HELP);
      return 0;
    }
    if (positionals.length > 1) throw new UsageError(`one report at a time; got ${positionals.join(' ')}`);
    // The config file's `out` is where the evaluations go; --out (or a path given) wins over it.
    const given = positionals[0] ?? values.out ?? (config?.config.out && configPath(config, config.config.out));
    let file: string | undefined;
    if (given !== undefined) {
      const path = resolve(io.cwd, given);
      file = isFile(path) ? path : join(path, REPORT);
      if (!isFile(file) && positionals[0] !== undefined)
        throw new UsageError(`no HTML report at ${given}`, `write one with oneway eval --out=${given} --reporter=html`);
    }
    if (!file || !isFile(file))
      file =
        (isFile(resolve(io.cwd, 'reports/latest', REPORT)) ? resolve(io.cwd, 'reports/latest', REPORT) : undefined) ??
        newestReport(io.cwd);
    if (!file)
      throw new UsageError(
        'no HTML report found (looked in reports/latest and reports/*/)',
        'write one with oneway eval --reporter=table,html',
      );
    const shown = relative(io.cwd, file).startsWith('..') ? file : relative(io.cwd, file);
    io.stdout.write(`${shown}\n`);
    const how = values['no-open'] ? undefined : opener(platform, io.env);
    if (!how) {
      io.stderr.write(c.dim(`open it in a browser: ${pathToFileURL(file).href}\n`));
      return 0;
    }
    await new Promise<void>((done) => {
      const child = spawn(how.command, [...how.args, file], { stdio: 'ignore', detached: true });
      child.on('error', (e) => {
        io.stderr.write(c.dim(`could not start ${how.command} (${e.message}); open ${pathToFileURL(file).href}\n`));
        done();
      });
      child.on('spawn', () => {
        child.unref();
        done();
      });
    });
    return 0;
  } catch (e) {
    return commandFailed(e, io, 'oneway view');
  }
}

await runIfEntry(import.meta.url, (argv: string[]) => main(argv));
