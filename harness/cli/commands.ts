/**
 * The `oneway` command's subcommands: names, one-line summaries, and how to load each. Nothing
 * here imports the engine: `oneway --help` lists the commands from this table alone, and a
 * command's module (with everything it needs) is imported only when that command runs.
 */
import type { ConfigFile } from '../features/request/config.ts';
import type { Io } from './common.ts';

/**
 * What a command module exports: its `main` (given the config file when one applies to it: its
 * flags win over it), and the options it parses (util.parseArgs style).
 */
export interface CommandModule {
  main(argv: string[], io: Io, config?: ConfigFile): Promise<number>;
  OPTIONS: Readonly<
    Record<string, { readonly type: 'string' | 'boolean'; readonly multiple?: boolean; readonly short?: string }>
  >;
}

export interface CommandSpec {
  name: string;
  /** Other names it answers to (the repository's npm script names among them). */
  aliases?: string[];
  /** Arguments besides options, as shown in usage. */
  args?: string;
  summary: string;
  /** Whether the config file (oneway.config.*) applies to it. */
  config: boolean;
  load(): Promise<CommandModule>;
}

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'eval',
    summary: 'evaluate planners on scenarios (premature irreversible calls)',
    config: true,
    load: () => import('./eval.ts'),
  },
  {
    name: 'fuzz',
    summary: 'generate plans, check properties, shrink failures',
    config: true,
    load: () => import('./fuzz.ts'),
  },
  {
    name: 'recover',
    args: '<record.jsonl>',
    summary: "a run's incident checklist; --apply undoes it in a sandbox",
    config: false,
    load: () => import('./recover.ts'),
  },
  {
    name: 'lint',
    args: '[paths...]',
    summary: 'review scenario declarations beyond the schema',
    config: true,
    load: () => import('./lint.ts'),
  },
  {
    name: 'import',
    args: 'mcp <file|url|-- command>',
    summary: "an MCP server's tools (a saved tools/list, a URL, or a stdio command) as a scenario skeleton",
    config: false,
    load: () => import('./import.ts'),
  },
  {
    name: 'export',
    args: 'openai|mcp <id>',
    summary: "a scenario's tools as OpenAI functions or MCP tools",
    config: false,
    load: () => import('./export.ts'),
  },
  {
    name: 'serve',
    summary: 'a scenario as an MCP server; each session is one run',
    config: true,
    load: () => import('./serve.ts'),
  },
  {
    name: 'guard',
    args: '-- <command>',
    summary: 'enforce the declarations in front of a real MCP server; journal every effect for recover',
    config: false,
    load: () => import('./guard.ts'),
  },
  {
    name: 'audit',
    args: '<journals|dirs...>',
    summary: "score real sessions (guard journals) with the evaluation's behaviour scores",
    config: false,
    load: () => import('./audit.ts'),
  },
  {
    name: 'bench',
    summary: 'what calls cost and how evaluations scale, here',
    config: false,
    load: () => import('./bench.ts'),
  },
  {
    name: 'merge',
    aliases: ['eval:merge'],
    args: '<dirs...>',
    summary: 'merge sharded evaluations (eval --shard=i/n)',
    config: true,
    load: () => import('./merge.ts'),
  },
  {
    name: 'view',
    args: '[dir]',
    summary: "print the last HTML report's path and open it",
    config: true,
    load: () => import('./view.ts'),
  },
];

export function commandNamed(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));
}
