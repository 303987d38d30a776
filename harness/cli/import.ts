/**
 * `npm run import -- mcp FILE|URL|-- COMMAND...`: an MCP tools/list result (a saved
 * JSON, a Streamable HTTP server, or a stdio server command) as a oneway scenario
 * skeleton, every tool marked `review: true`.
 * Exit status: 0 written; 2 usage or input error.
 */
import { commandLine, commandPrefix } from '../util/command-line.ts';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, relative, resolve } from 'node:path';
import { UsageError } from '../core/errors.ts';
import { importMcpTools, scenarioId } from '../features/convert/import-mcp.ts';
import { toolsListOf, type McpTool } from '../features/convert/mcp.ts';
import { isUrl, listLiveTools } from '../features/convert/mcp-live.ts';
import { terminalText } from '../util/terminal-text.ts';
import { parseCli, REPO_ROOT, type Io, commandFailed, runIfEntry, processIo, paints } from './common.ts';
import { printHelp } from './help.ts';
import { importTau2, TAU2_HELP } from './import-tau2.ts';

const HELP = `oneway import: turn another tool format into oneway tool declarations.

Usage: oneway import mcp FILE [options]
       oneway import mcp URL [options]
       oneway import mcp [options] -- COMMAND [ARGS...]
       oneway import tau2 --from=DIR --domain=retail|airline|all --out=DIR   (oneway import tau2 --help)

  mcp FILE                   an MCP tools/list result (JSON): {"tools": [...]}, or the JSON-RPC reply
                             {"result": {"tools": [...]}}
  mcp URL                    a live server over Streamable HTTP (http:// or https://)
  mcp -- COMMAND ARGS...     a live server over stdio: everything after -- starts it; it is
                             stopped once its tools are listed (every page)
  --timeout=SECONDS          give up on a live server after this long (default 60)
  --out=FILE                 write the scenario skeleton here (default: print it)
  --force                    overwrite --out if it exists
  --id=ID                    the scenario id (default: from the file name)
  -h, --help                 this help

Classes from MCP hints: readOnlyHint → reversible, read_only; openWorldHint true → irreversible
until reviewed (never reversible); destructiveHint false → compensable or reversible candidate when
a partner undoes it by name (create_X ↔ delete_X, add_X ↔ remove_X, write_X → delete_X), else
irreversible until reviewed; anything else → irreversible until reviewed. Tools exported by
oneway carry their class in _meta, which wins. Every imported tool gets review: true, which
npm run lint reports until a human removes it. The skeleton always loads.

Exit status: 0 written; 2 a usage or input error, or a live server that cannot be listed.
Examples: oneway import mcp github-tools.json --out=scenarios/github/triage.yaml
          npm run import -- mcp --out=memory.yaml -- npx -y @modelcontextprotocol/server-memory
          oneway import mcp http://127.0.0.1:3001/mcp`;

/** The options `main` parses (also read by the `oneway` command, e.g. to catch a forgotten `--` after `npm run`). */
export const OPTIONS = {
  out: { type: 'string' },
  force: { type: 'boolean' },
  id: { type: 'string' },
  timeout: { type: 'string' },
  from: { type: 'string' },
  domain: { type: 'string' },
  tasks: { type: 'string' },
  'airline-db': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const { cerr } = paints(io);
  try {
    // Everything after the first `--` is a stdio server's command line, options and all.
    const dash = argv.indexOf('--');
    const command = dash >= 0 ? argv.slice(dash + 1) : undefined;
    const { values, positionals } = parseCli(dash >= 0 ? argv.slice(0, dash) : argv, OPTIONS, true, {
      command: 'oneway import',
      what: "a stdio server's command",
      positionals: 1,
    });
    if (values.help) {
      printHelp(io, positionals[0] === 'tau2' ? TAU2_HELP : HELP);
      return 0;
    }
    const [format, file, ...extra] = positionals;
    if (format === undefined)
      throw new UsageError('give the format and the file', 'e.g. npx oneway import mcp tools.json');
    if (format === 'tau2') {
      if (file !== undefined)
        throw new UsageError(
          `oneway import tau2 takes no positional argument (got ${file})`,
          'give the clone with --from=DIR',
        );
      if (values.id !== undefined || values.timeout !== undefined || command !== undefined)
        throw new UsageError('--id, --timeout and -- COMMAND are options of oneway import mcp, not tau2');
      return importTau2(values, io);
    }
    if (format !== 'mcp') throw new UsageError(`unknown import format "${format}"`, 'formats: mcp, tau2');
    for (const k of ['from', 'domain', 'tasks', 'airline-db'] as const)
      if (values[k] !== undefined) throw new UsageError(`--${k} is an option of oneway import tau2, not mcp`);
    if (command !== undefined && command.length === 0)
      throw new UsageError(
        'give the server command after --',
        'e.g. npx oneway import mcp -- npx -y @modelcontextprotocol/server-memory',
      );
    if (command !== undefined && file !== undefined)
      throw new UsageError(`give a file, a URL, or a command after --, not both (got ${file})`);
    if (file === undefined && command === undefined)
      throw new UsageError(
        'give the MCP tools/list file, a server URL, or a server command after --',
        'e.g. npx oneway import mcp tools.json, or npx oneway import mcp -- npx -y @modelcontextprotocol/server-memory',
      );
    if (extra.length > 0)
      throw new UsageError(`one file at a time; also got ${extra.join(' ')}`, 'a stdio server command goes after --');
    if (values.id !== undefined && !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(values.id))
      throw new UsageError(`--id must be kebab-case (lowercase letters, digits, single dashes), got "${values.id}"`);
    const timeoutS = values.timeout === undefined ? 60 : Number(values.timeout);
    if (!Number.isFinite(timeoutS) || timeoutS <= 0)
      throw new UsageError(`--timeout must be a number of seconds > 0, got "${values.timeout}"`);

    let tools: McpTool[];
    let skipped: string[];
    let source: string;
    let defaultId: string;
    if (command !== undefined || (file !== undefined && isUrl(file))) {
      const [cmd, ...args] = command ?? [];
      const target = command !== undefined ? { command: cmd as string, args, cwd: io.cwd } : { url: file as string };
      try {
        const live = await listLiveTools(target, { timeoutMs: timeoutS * 1000 });
        tools = live.tools;
        skipped = live.skipped;
        source = live.server ? `${live.server.name} ${live.server.version}` : (command ?? [file as string]).join(' ');
        defaultId = scenarioId(
          live.server?.name ?? (command === undefined ? new URL(file as string).hostname : basename(cmd as string)),
        );
      } catch (e) {
        throw new UsageError(
          (e as Error).message,
          command !== undefined
            ? 'check the command runs the server over stdio (try it in a shell)'
            : 'check the URL serves MCP over Streamable HTTP',
        );
      }
    } else {
      const path = resolve(io.cwd, file as string);
      let text: string;
      try {
        if (statSync(path).isDirectory())
          throw new UsageError(`${file} is a directory`, 'give the JSON file of a tools/list result');
        text = readFileSync(path, 'utf8');
      } catch (e) {
        if (e instanceof UsageError) throw e;
        const code = (e as NodeJS.ErrnoException).code;
        throw new UsageError(
          code === 'ENOENT' ? `${file} does not exist` : `${file} cannot be read: ${(e as Error).message}`,
          'relative paths start at the current directory',
        );
      }
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch (e) {
        throw new UsageError(`${file} is not JSON: ${(e as Error).message}`, 'save the tools/list reply as JSON');
      }
      const list = toolsListOf(doc);
      if (!list.ok) throw new UsageError(`${file}: ${list.message}`, list.hint);
      tools = list.value.tools;
      skipped = list.value.skipped;
      source = basename(file as string);
      defaultId = scenarioId(basename(file as string));
    }
    for (const s of skipped) io.stderr.write(`${cerr.yellow(`warning: ${terminalText(s)}; skipped`)}\n`);
    if (tools.length === 0)
      throw new UsageError(`${source}: the tools list is empty`, 'a scenario needs at least one tool');

    const out = values.out ? resolve(io.cwd, values.out) : undefined;
    if (out && existsSync(out) && !values.force)
      throw new UsageError(`${values.out} exists`, 'pass --force to overwrite it, or choose another --out');
    const schema = resolve(REPO_ROOT, 'harness/schema/scenario.schema.json');
    const result = importMcpTools(tools, {
      id: values.id ?? defaultId,
      source,
      schemaPath: relative(out ? dirname(out) : io.cwd, schema),
    });
    if (out) writeFileSync(out, result.yaml);
    else io.stdout.write(result.yaml);

    for (const n of result.notes) io.stderr.write(`${cerr.yellow(`note: ${terminalText(n)}`)}\n`);
    const count = (b: string) => result.tools.filter((t) => t.verdict.basis === b).length;
    const parts = [
      count('meta') && `${count('meta')} classed from _meta`,
      count('read_only_hint') && `${count('read_only_hint')} read-only`,
      count('reversible_candidate') && `${count('reversible_candidate')} additive (check the proposed compensations)`,
      count('open_world') && `${count('open_world')} open world`,
      count('destructive_or_unknown') && `${count('destructive_or_unknown')} destructive or unhinted`,
    ].filter(Boolean);
    io.stderr.write(
      `imported ${result.tools.length} tool${result.tools.length === 1 ? '' : 's'}${out ? ` to ${values.out}` : ''}: ${parts.join(', ')}; every tool has review: true\n`,
    );
    io.stderr.write(
      cerr.dim(
        `next: fill in the TODOs, then ${values.out ? commandLine('lint', [values.out]) : `${commandPrefix('lint')} <file>`}\n`,
      ),
    );
    return 0;
  } catch (e) {
    return commandFailed(e, io, 'oneway import');
  }
}

await runIfEntry(import.meta.url, (argv: string[]) => main(argv));
