/**
 * `npm run eval:merge -- --out=DIR DIR1 DIR2 ...`: merges the output of
 * `--shard` runs into the results of the unsharded evaluation, copying their
 * run records, then writes the reports asked for (harness/features/pipeline/merge.ts:
 * an evaluation's last steps, its --out lock too). Exit status: 0 merged; 1 a gate
 * failed; 2 a usage or input error (the parts list problems, a part or --out is in use).
 */
import { relative } from 'node:path';
import { UsageError } from '../core/errors.ts';
import { REPORTERS } from '../features/report/names.ts';
import { merged } from '../features/pipeline/merge.ts';
import { terminalText } from '../util/terminal-text.ts';
import type { ConfigFile } from '../features/request/config.ts';
import { configLayer, EVAL_DEFAULTS } from '../features/request/eval.ts';
import { mergeRequest } from '../features/request/merge.ts';
import { list, parseCli, type Io, commandFailed, runIfEntry, processIo, paints, sayGates } from './common.ts';
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
\`oneway eval\` of the built-ins): the merged results compare them all.
A part an evaluation (or serve) is still writing is refused: wait for it to
finish, then merge.
Exit status: 0 merged; 1 a gate failed; 2 a usage or input error (parts that
do not merge, a gate naming a planner they lack, a part or an --out an
evaluation holds).`;

/** The options `main` parses (also read by the `oneway` command, e.g. to catch a forgotten `--` after `npm run`). */
export const OPTIONS = {
  out: { type: 'string' },
  reporter: { type: 'string', multiple: true },
  'baseline-planner': { type: 'string' },
  baseline: { type: 'string' },
  'fail-on': { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `oneway merge`: the flags (over oneway.config.*) as a merge request, merged (harness/features/pipeline/merge.ts), said; returns the exit status. */
export async function main(argv: string[], io: Io = processIo(), config?: ConfigFile): Promise<number> {
  const { c, cerr } = paints(io);
  try {
    const { values, positionals } = parseCli(argv, OPTIONS, true);
    if (values.help) {
      printHelp(io, HELP);
      return 0;
    }
    if (positionals.length === 0)
      throw new UsageError('no shard directories given', 'npx oneway merge --out=DIR DIR1 DIR2 ...');
    // Of the config file: the reporters, the gates, the baseline and out, each overridden by its flag.
    const request = await mergeRequest(
      [
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
      ],
      positionals,
      { cwd: io.cwd, env: io.env, defaults: EVAL_DEFAULTS },
    );
    const { results, written } = await merged(
      request,
      { command: 'oneway merge' },
      {
        console: { stdout: io.stdout, chalk: c },
        warning: (m) => io.stderr.write(`${cerr.yellow(`oneway: ${terminalText(m)}`)}\n`),
      },
    );
    const where = relative(io.cwd, request.outDir) || '.';
    io.stderr.write(
      `${cerr.dim(`merged ${plural(request.parts.length, 'shard')}, ${plural(results.runs.length, 'run')}: ${[`${where}/results.json`, ...written.map((w) => `${where}/${w}`)].join(', ')}`)}\n`,
    );
    sayGates(results.gates, io);
    if (results.problems.length > 0) return 2;
    return results.gates.failures.length > 0 ? 1 : 0;
  } catch (e) {
    return commandFailed(e, io, 'oneway');
  }
}

await runIfEntry(import.meta.url, (argv: string[]) => main(argv));
