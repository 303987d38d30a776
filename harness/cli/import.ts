/**
 * `npm run import -- mcp FILE`: an MCP tools/list result as a oneway scenario
 * skeleton, every tool marked `review: true`.
 * Exit status: 0 written; 2 usage or input error.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, relative, resolve } from 'node:path';
import { UsageError } from '../errors.ts';
import { importMcpTools, scenarioId } from '../convert/import-mcp.ts';
import { toolsListOf } from '../convert/mcp.ts';
import { terminalText } from '../util/terminal-text.ts';
import { parseCli, REPO_ROOT, type Io, commandFailed, runIfEntry, processIo, paints } from './common.ts';

const HELP = `oneway import: turn another tool format into oneway tool declarations.

Usage: oneway import mcp FILE [options]

  mcp FILE                   an MCP tools/list result (JSON): {"tools": [...]}, or the JSON-RPC reply
                             {"result": {"tools": [...]}}
  --out=FILE                 write the scenario skeleton here (default: print it)
  --force                    overwrite --out if it exists
  --id=ID                    the scenario id (default: from the file name)
  -h, --help                 this help

Classes from MCP hints: readOnlyHint → reversible, read_only; destructiveHint false with
idempotentHint true → reversible candidate (name its compensating_operation); anything else →
irreversible until reviewed. Tools exported by oneway carry their class in _meta, which wins.
Every imported tool gets review: true, which npm run lint reports until a human removes it.

Exit status: 0 written; 2 a usage or input error.
Example: oneway import mcp github-tools.json --out=scenarios/github/triage.yaml`;

/** The options `main` parses (also read by the `oneway` command, e.g. to catch a forgotten `--` after `npm run`). */
export const OPTIONS = { out: { type: 'string' }, force: { type: 'boolean' }, id: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const { cerr } = paints(io);
  try {
    const { values, positionals } = parseCli(argv, OPTIONS, true);
    if (values.help) {
      io.stdout.write(`${HELP}\n`);
      return 0;
    }
    const [format, file, ...extra] = positionals;
    if (format === undefined) throw new UsageError('give the format and the file', 'e.g. npm run import -- mcp tools.json');
    if (format !== 'mcp') throw new UsageError(`unknown import format "${format}"`, 'formats: mcp');
    if (file === undefined) throw new UsageError('give the MCP tools/list file', 'e.g. npm run import -- mcp tools.json');
    if (extra.length > 0) throw new UsageError(`one file at a time; also got ${extra.join(' ')}`);
    if (values.id !== undefined && !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(values.id)) throw new UsageError(`--id must be kebab-case (lowercase letters, digits, single dashes), got "${values.id}"`);

    const path = resolve(io.cwd, file);
    let text: string;
    try {
      if (statSync(path).isDirectory()) throw new UsageError(`${file} is a directory`, 'give the JSON file of a tools/list result');
      text = readFileSync(path, 'utf8');
    } catch (e) {
      if (e instanceof UsageError) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(code === 'ENOENT' ? `${file} does not exist` : `${file} cannot be read: ${(e as Error).message}`, 'relative paths start at the current directory');
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new UsageError(`${file} is not JSON: ${(e as Error).message}`, 'save the tools/list reply as JSON');
    }
    const list = toolsListOf(doc);
    if (!list.ok) throw new UsageError(`${file}: ${list.message}`, list.hint);
    for (const s of list.skipped) io.stderr.write(`${cerr.yellow(`warning: ${terminalText(s)}; skipped`)}\n`);
    if (list.tools.length === 0) throw new UsageError(`${file}: the tools list is empty`, 'a scenario needs at least one tool');

    const out = values.out ? resolve(io.cwd, values.out) : undefined;
    if (out && existsSync(out) && !values.force) throw new UsageError(`${values.out} exists`, 'pass --force to overwrite it, or choose another --out');
    const schema = resolve(REPO_ROOT, 'harness/schema/scenario.schema.json');
    const result = importMcpTools(list.tools, {
      id: values.id ?? scenarioId(basename(file)),
      source: basename(file),
      schemaPath: relative(out ? dirname(out) : io.cwd, schema),
    });
    if (out) writeFileSync(out, result.yaml);
    else io.stdout.write(result.yaml);

    for (const n of result.notes) io.stderr.write(`${cerr.yellow(`note: ${terminalText(n)}`)}\n`);
    const count = (b: string) => result.tools.filter((t) => t.verdict.basis === b).length;
    const parts = [
      count('meta') && `${count('meta')} classed from _meta`,
      count('read_only_hint') && `${count('read_only_hint')} read-only`,
      count('reversible_candidate') && `${count('reversible_candidate')} reversible candidate${count('reversible_candidate') === 1 ? '' : 's'} (name the compensation)`,
      count('destructive_or_unknown') && `${count('destructive_or_unknown')} irreversible until reviewed`,
    ].filter(Boolean);
    io.stderr.write(`imported ${result.tools.length} tool${result.tools.length === 1 ? '' : 's'}${out ? ` to ${values.out}` : ''}: ${parts.join(', ')}; every tool has review: true\n`);
    io.stderr.write(cerr.dim(`next: fill in the TODOs, then npm run lint -- ${values.out ?? '<file>'}\n`));
    return 0;
  } catch (e) {
    return commandFailed(e, io, 'oneway import');
  }
}

await runIfEntry(import.meta.url, (argv: string[]) => main(argv));
