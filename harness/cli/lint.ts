/**
 * `npm run lint -- PATHS`: review scenario declarations beyond the schema.
 * Exit status: 0 no errors (warnings and notes only); 1 errors found; 2 usage error.
 */
import { formatProblem, UsageError } from '../core/errors.ts';
import { lintPaths } from '../features/lint/lint.ts';
import { LINT_RULES } from '../features/lint/rules/index.ts';
import { formatFinding, type LintFinding } from '../features/lint/types.ts';
import { makeChalk } from '../features/report/color.ts';
import { plural } from '../util/plural.ts';
import { terminalText } from '../util/terminal-text.ts';
import type { ConfigFile } from '../features/request/config.ts';
import { configLayer, type EvalSettings } from '../features/request/eval.ts';
import { mergeLayers } from '../features/request/layers.ts';
import {
  parseCli,
  type Io,
  commandFailed,
  runIfEntry,
  processIo,
  paints,
  reporterOption,
  scenarioHome,
  scenarioSpecs,
} from './common.ts';
import { printHelp } from './help.ts';

const HELP = `oneway lint: review scenario declarations beyond the schema, and the tools and policy files oneway guard enforces.

Usage: oneway lint [PATHS...] [options]

  PATHS                      scenario files, directories, globs or ids, as --scenario takes them
                             (default: "scenarios" in oneway.config.*, else the project's ./scenarios);
                             tools files (a tools: block) and guard policy files too, told apart by their keys
  --as=scenario|tools|policy read every PATH as this kind of file: --as=tools reviews a scenario as
                             oneway guard --tools reads it (unreviewed entries and TODO compensations are errors)
  --bundled                  with no PATHS: lint the example scenarios that ship with oneway
  --reporter=text|json       how to print the findings (default: text; --format, its former name,
                             still works with a warning)
  --quiet                    errors only: no warnings or notes
  -h, --help                 this help

Rules:
${LINT_RULES.map((r) => `  ${r.id.padEnd(26)} ${r.description}`).join('\n')}
A file that fails to load is reported (its problems as errors) and the others are still linted.
In a tools file, review-pending and compensation-todo are errors: oneway guard refuses the file
until they are reviewed (--allow-unreviewed), and a policy file gets its load problems and a
warning for a class left on auto that should not be.

Exit status: 0 no errors (warnings and notes only); 1 errors found; 2 a usage error.
Example: oneway lint scenarios/data/ imported.yaml`;

/** The options `main` parses (also read by the `oneway` command, e.g. to catch a forgotten `--` after `npm run`). */
export const OPTIONS = {
  reporter: { type: 'string' },
  format: { type: 'string' },
  quiet: { type: 'boolean' },
  bundled: { type: 'boolean' },
  as: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function main(argv: string[], io: Io = processIo(), config?: ConfigFile): Promise<number> {
  const { c, cerr } = paints(io);
  try {
    const { values, positionals } = parseCli(argv, OPTIONS, true);
    if (values.help) {
      printHelp(io, HELP);
      return 0;
    }
    const format = reporterOption(values, io, 'text');
    if (format !== 'text' && format !== 'json')
      throw new UsageError(`--reporter must be text or json, got "${terminalText(format)}"`);
    // PATHS or --bundled win over the config file's scenarios (or bundled).
    const { settings } = mergeLayers<EvalSettings>([
      ...(config ? [configLayer(config)] : []),
      {
        from: { kind: 'flags' },
        settings: { scenarios: positionals.length ? positionals : undefined, bundled: values.bundled },
      },
    ]);
    const kind = values.as;
    if (kind !== undefined && kind !== 'scenario' && kind !== 'tools' && kind !== 'policy')
      throw new UsageError(`--as must be scenario, tools or policy, got "${terminalText(kind)}"`);
    const home = scenarioHome(io, settings.bundled);
    const specs = scenarioSpecs(settings.scenarios, home, io);
    const report = await lintPaths(specs, { cwd: io.cwd, root: home.root, kind });
    for (const p of report.specProblems) io.stderr.write(`${cerr.red(formatProblem(p))}\n`);
    if (report.plans.length > 0) {
      const first = terminalText(report.plans[0] ?? '');
      io.stderr.write(
        `oneway lint: ${plural(report.plans.length, 'plan file')} left out (${first}${report.plans.length > 1 ? ', ...' : ''}): a plan is a list of calls, not a scenario; oneway eval --planner=scripted --plan=FILE replays one\n`,
      );
    }
    if (report.files.length === 0) {
      io.stderr.write(cerr.red('oneway lint: no file to lint\n'));
      return 2;
    }
    const shown = values.quiet ? report.findings.filter((f) => f.severity === 'error') : report.findings;
    const errors = report.findings.filter((f) => f.severity === 'error').length;
    const warnings = report.findings.filter((f) => f.severity === 'warning').length;
    const notes = report.findings.length - errors - warnings;
    if (format === 'json') {
      io.stdout.write(
        `${JSON.stringify({ files: report.files, findings: shown, errors, warnings, notes }, null, 2)}\n`,
      );
    } else {
      for (const f of shown) io.stdout.write(`${paint(f, c)}\n`);
      const summary = `${report.files.length} file${report.files.length === 1 ? '' : 's'}: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}, ${notes} note${notes === 1 ? '' : 's'}`;
      io.stderr.write(`${errors ? cerr.red(summary) : warnings ? cerr.yellow(summary) : cerr.green(summary)}\n`);
    }
    if (report.specProblems.length > 0) return 2;
    return errors > 0 ? 1 : 0;
  } catch (e) {
    return commandFailed(e, io, 'oneway lint');
  }
}

function paint(f: LintFinding, c: ReturnType<typeof makeChalk>): string {
  const text = formatFinding(f);
  const sev =
    f.severity === 'error' ? c.red(f.severity) : f.severity === 'warning' ? c.yellow(f.severity) : c.cyan(f.severity);
  return text.replace(` ${f.severity} [`, ` ${sev} [`);
}

await runIfEntry(import.meta.url, (argv: string[]) => main(argv));
