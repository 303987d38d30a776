/**
 * `npm run export -- openai|mcp SCENARIO`: a scenario's tools as OpenAI
 * function definitions or MCP tools, with their classes.
 * Exit status: 0 printed; 2 usage or input error.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatProblem, UsageError } from '../core/errors.ts';
import { EXPORT_FORMATS, exportMcp, exportOpenAi, type ExportFormat } from '../features/convert/export.ts';
import { resolveScenarioSpecs, parseCli, type Io, commandFailed, runIfEntry, processIo, paints } from './common.ts';
import { printHelp } from './help.ts';

const HELP = `oneway export: a scenario's tools in another tool format, classes included.

Usage: oneway export openai|mcp SCENARIO [options]

  openai                     OpenAI function definitions ({type: "function", function: {name, description,
                             parameters}}), the class, compensation and preconditions in the description
  mcp                        an MCP tools/list result: readOnlyHint, destructiveHint (false only for
                             reversible tools), idempotentHint where declared, and _meta with
                             "oneway/class", "oneway/compensating_operation", "oneway/preconditions"
  SCENARIO                   a scenario id or file; classes are those of its deployment
  --out=FILE                 write the JSON here (default: print it)
  --force                    overwrite --out if it exists
  -h, --help                 this help

Exit status: 0 printed; 2 a usage or input error.
Example: oneway export mcp invoice-and-notify > tools.json`;

/** The options `main` parses (also read by the `oneway` command, e.g. to catch a forgotten `--` after `npm run`). */
export const OPTIONS = {
  out: { type: 'string' },
  force: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const { cerr } = paints(io);
  try {
    const { values, positionals } = parseCli(argv, OPTIONS, true);
    if (values.help) {
      printHelp(io, HELP);
      return 0;
    }
    const [format, spec, ...extra] = positionals;
    if (format === undefined || spec === undefined)
      throw new UsageError('give the format and the scenario', 'e.g. npm run export -- mcp invoice-and-notify');
    if (!(EXPORT_FORMATS as readonly string[]).includes(format))
      throw new UsageError(`unknown export format "${format}"`, `formats: ${EXPORT_FORMATS.join(', ')}`);
    if (extra.length > 0) throw new UsageError(`one scenario at a time; also got ${extra.join(' ')}`);
    const resolved = await resolveScenarioSpecs([spec], io);
    for (const p of resolved.problems) io.stderr.write(`${formatProblem(p)}\n`);
    if (resolved.problems.length > 0 || resolved.loaded.length === 0) {
      io.stderr.write(cerr.red('oneway export: the scenario did not load; nothing was exported\n'));
      return 2;
    }
    if (resolved.loaded.length > 1)
      throw new UsageError(
        `"${spec}" names ${resolved.loaded.length} scenarios`,
        'export one scenario (an id or a file)',
      );
    const scenario = (resolved.loaded[0] as (typeof resolved.loaded)[number]).scenario;
    const doc = (format as ExportFormat) === 'openai' ? exportOpenAi(scenario) : exportMcp(scenario);
    const text = `${JSON.stringify(doc, null, 2)}\n`;
    if (values.out) {
      const out = resolve(io.cwd, values.out);
      if (existsSync(out) && !values.force)
        throw new UsageError(`${values.out} exists`, 'pass --force to overwrite it, or choose another --out');
      writeFileSync(out, text);
      io.stderr.write(`exported ${scenario.tools.length} tools of ${scenario.id} to ${values.out}\n`);
    } else io.stdout.write(text);
    return 0;
  } catch (e) {
    return commandFailed(e, io, 'oneway export');
  }
}

await runIfEntry(import.meta.url, (argv: string[]) => main(argv));
