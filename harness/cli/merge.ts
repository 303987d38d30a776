/**
 * `npm run eval:merge -- --out=DIR DIR1 DIR2 ...`: merges the output of
 * `--shard` runs into the results of the unsharded evaluation, copying their
 * run records, then writes the reports asked for.
 */
import { cpSync, existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { UsageError } from '../core/errors.ts';
import { analyseResults } from '../engine/results/build.ts';
import { readBaseline } from '../engine/gates/baseline.ts';
import { parseGate } from '../engine/gates/fail-on.ts';
import { reportersFor, writeReports, REPORTERS } from '../features/report/index.ts';
import { readResults, writeResults } from '../engine/results/write.ts';
import { mergeResults } from '../engine/runner/shard.ts';
import { terminalText } from '../util/terminal-text.ts';
import type { ConfigFile } from '../features/request/config.ts';
import { configLayer, type EvalSettings } from '../features/request/eval.ts';
import { mergeLayers } from '../features/request/layers.ts';
import { list, parseCli, type Io, commandFailed, runIfEntry, processIo, paints } from './common.ts';
import { printHelp } from './help.ts';
import { plural } from '../util/plural.ts';

const HELP = `oneway merge (eval:merge): merge the outputs of sharded evaluations

Usage: oneway merge --out=DIR DIR1 DIR2 ...       (in a clone of oneway: npm run eval:merge -- ...)

  --out=DIR              where the merged results.json and runs/ go (default: reports/latest)
  --reporter=NAME[,...]  ${REPORTERS.join(', ')} (default: table)
  --baseline-planner=NAME, --fail-on=EXPR, --baseline=FILE
                         comparisons and gates, as in oneway eval (a failed gate exits 1)
  -h, --help             this help

Each DIRi is the --out of one \`oneway eval --shard=i/n\`: the merged results
equal those of the unsharded evaluation (apart from wall-clock timings). Or
each is an evaluation of other planners on the same scenarios and --seed (an
\`oneway serve\` of your agent, whose sessions are trials 1, 2, ..., and an
\`oneway eval\` of the built-ins): the merged results compare them all.`;

/** The options `main` parses (also read by the `oneway` command, e.g. to catch a forgotten `--` after `npm run`). */
export const OPTIONS = {
  out: { type: 'string' },
  reporter: { type: 'string', multiple: true },
  'baseline-planner': { type: 'string' },
  baseline: { type: 'string' },
  'fail-on': { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function main(argv: string[], io: Io = processIo(), config?: ConfigFile): Promise<number> {
  const { cerr } = paints(io);
  try {
    const { values, positionals } = parseCli(argv, OPTIONS, true);
    if (values.help) {
      printHelp(io, HELP);
      return 0;
    }
    if (positionals.length === 0)
      throw new UsageError('no shard directories given', 'npx oneway merge --out=DIR DIR1 DIR2 ...');
    // Of the config file: the reporters, the gates, the baseline and out, each overridden by its flag.
    const { settings, origin } = mergeLayers<EvalSettings>([
      ...(config ? [configLayer(config)] : []),
      {
        from: { kind: 'flags' },
        settings: {
          reporters: values.reporter && list(values.reporter, []),
          failOn: values['fail-on'],
          baseline: values.baseline,
          baselinePlanner: values['baseline-planner'],
          out: values.out,
        },
      },
    ]);
    const reporters = reportersFor(settings.reporters ?? ['table'], io.env);
    const dirs = positionals.map((d) => resolve(io.cwd, d));
    // The config file's gates stand for every run: one naming a planner these results lack is skipped.
    const gates = (settings.failOn ?? []).map((g) => parseGate(g, { optional: origin.failOn?.kind === 'config' }));
    const baselineFile = settings.baseline ? resolve(io.cwd, settings.baseline) : undefined;
    const baseline = baselineFile ? readBaseline(baselineFile) : undefined;
    const bp = settings.baselinePlanner;
    const parts = dirs.map(readResults);
    if (bp !== undefined && !parts.some((p) => p.config.planners.includes(bp)))
      throw new UsageError(`--baseline-planner=${bp} is not among the planners of these results`);
    const merged = analyseResults(mergeResults(parts), {
      ...(bp !== undefined ? { baselinePlanner: bp } : {}),
      gates,
      ...(baseline && baselineFile
        ? { baseline: { label: relative(io.cwd, baselineFile) || baselineFile, results: baseline } }
        : {}),
    });
    const outDir = resolve(io.cwd, settings.out ?? 'reports/latest');
    for (const d of dirs) {
      if (resolve(d) !== outDir && existsSync(join(d, 'runs')))
        cpSync(join(d, 'runs'), join(outDir, 'runs'), { recursive: true });
    }
    writeResults(outDir, merged);
    const written = writeReports(merged, reporters, { outDir, stdout: io.stdout, chalk: paints(io).c, env: io.env });
    const where = relative(io.cwd, outDir) || '.';
    io.stderr.write(
      `${cerr.dim(`merged ${plural(dirs.length, 'shard')}, ${plural(merged.runs.length, 'run')}: ${[`${where}/results.json`, ...written.map((w) => `${where}/${w}`)].join(', ')}`)}\n`,
    );
    for (const s of merged.gates.skipped ?? []) io.stderr.write(`${cerr.yellow(`note: ${terminalText(s.message)}`)}\n`);
    for (const f of merged.gates.failures) io.stderr.write(`${cerr.red(`✗ ${terminalText(f.message)}`)}\n`);
    if (merged.problems.length > 0) return 2;
    return merged.gates.failures.length > 0 ? 1 : 0;
  } catch (e) {
    return commandFailed(e, io, 'oneway');
  }
}

await runIfEntry(import.meta.url, (argv: string[]) => main(argv));
