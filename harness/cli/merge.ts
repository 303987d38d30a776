/**
 * `npm run eval:merge -- --out=DIR DIR1 DIR2 ...`: merges the output of
 * `--shard` runs into the results of the unsharded evaluation, copying their
 * run records, then writes the reports asked for.
 */
import { cpSync, existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { UsageError } from '../errors.ts';
import { makeChalk, useColor } from '../report/color.ts';
import { reportersFor, writeReports, REPORTERS } from '../report/index.ts';
import { readResults, writeResults } from '../results/write.ts';
import { mergeResults } from '../runner/shard.ts';
import { list, parseCli, type Io } from './common.ts';

const HELP = `oneway eval:merge: merge the outputs of sharded evaluations

Usage: npm run eval:merge -- --out=DIR DIR1 DIR2 ...

  --out=DIR              where the merged results.json and runs/ go (default: reports/latest)
  --reporter=NAME[,...]  ${REPORTERS.join(', ')} (default: table)
  -h, --help             this help

Each DIRi is the --out of one \`npm run eval -- --shard=i/n\`. The merged results
equal those of the unsharded evaluation (apart from wall-clock timings).`;

export async function main(argv: string[], io: Io = { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), env: process.env }): Promise<number> {
  const cerr = makeChalk(useColor(io.stderr, io.env));
  try {
    const { values, positionals } = parseCli(argv, { out: { type: 'string' }, reporter: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } }, true);
    if (values.help) {
      io.stdout.write(`${HELP}\n`);
      return 0;
    }
    if (positionals.length === 0) throw new UsageError('no shard directories given', 'npm run eval:merge -- --out=DIR DIR1 DIR2 ...');
    const reporters = reportersFor(list(values.reporter, ['table']), io.env);
    for (const r of reporters) if (!REPORTERS.includes(r)) throw new UsageError(`unknown reporter "${r}"`, `reporters: ${REPORTERS.join(', ')}`);
    const dirs = positionals.map((d) => resolve(io.cwd, d));
    const merged = mergeResults(dirs.map(readResults));
    const outDir = resolve(io.cwd, values.out ?? 'reports/latest');
    for (const d of dirs) {
      if (resolve(d) !== outDir && existsSync(join(d, 'runs'))) cpSync(join(d, 'runs'), join(outDir, 'runs'), { recursive: true });
    }
    writeResults(outDir, merged);
    const written = writeReports(merged, reporters, { outDir, stdout: io.stdout, chalk: makeChalk(useColor(io.stdout, io.env)), env: io.env });
    const where = relative(io.cwd, outDir) || '.';
    io.stderr.write(`${cerr.dim(`merged ${dirs.length} shard(s), ${merged.runs.length} runs: ${[`${where}/results.json`, ...written.map((w) => `${where}/${w}`)].join(', ')}`)}\n`);
    return merged.problems.length > 0 ? 2 : 0;
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`${cerr.red(`oneway: ${e.message}`)}\n${e.hint ? `  hint: ${e.hint}\n` : ''}`);
      return 2;
    }
    throw e;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  process.exitCode = await main(process.argv.slice(2));
}
