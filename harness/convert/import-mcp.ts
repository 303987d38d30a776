/**
 * An MCP `tools/list` result as a oneway scenario skeleton: one tool
 * declaration per MCP tool, classed from its hints (or from `_meta` when it
 * came from `npm run export -- mcp`), every one marked `review: true`, with
 * placeholders for what only a human can say (task, goal, compensations,
 * preconditions, effects). The skeleton parses; it loads once the reversible
 * candidates name their compensations.
 */
import { Document, isMap, isSeq, type YAMLMap } from 'yaml';
import { classFromHints, META_APPROVAL, META_COMPENSATION, META_KIND, META_PRECONDITIONS, type McpTool, type McpVerdict } from './mcp.ts';
import { trimRuns } from '../util/trim.ts';

export interface ImportOptions {
  /** The scenario id (kebab-case); default "imported-tools". */
  id?: string;
  /** Where the tools came from, for the header comment. */
  source?: string;
  /** The `$schema` path for the yaml-language-server line. */
  schemaPath?: string;
}

export interface ImportedTool {
  /** The declaration, as it goes into the YAML. */
  tool: Record<string, unknown>;
  verdict: McpVerdict;
  /** The MCP name when it had to be changed to fit oneway's tool names. */
  renamedFrom?: string;
  /** One line on how the class was decided, written above the tool. */
  comment: string;
}

export interface ImportResult {
  scenario: Record<string, unknown>;
  tools: ImportedTool[];
  yaml: string;
  notes: string[];
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** A name oneway (and OpenAI function calling) accepts: letters, digits, _ and -, at most 64. */
export function toolName(name: string, taken: ReadonlySet<string>): string {
  let base = trimRuns(name.replace(/[^A-Za-z0-9_-]+/g, '_'), '_') || 'tool';
  base = base.slice(0, 64);
  let out = base;
  for (let n = 2; taken.has(out); n++) out = `${base.slice(0, 64 - String(n).length - 1)}_${n}`;
  return out;
}

/** A kebab-case scenario id from any text ("GitHub MCP.json" → "github-mcp"). */
export function scenarioId(text: string): string {
  const id = text
    .toLowerCase()
    .replace(/\.[a-z0-9]+$/, '')
    .replace(/[^a-z0-9]+/g, '-');
  return trimRuns(id, '-') || 'imported-tools';
}

function hintsText(t: McpTool): string {
  const a = t.annotations ?? {};
  const parts = (['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const).filter((k) => a[k] !== undefined).map((k) => `${k}: ${String(a[k])}`);
  return parts.length ? parts.join(', ') : 'no hints';
}

function commentFor(t: McpTool, v: McpVerdict, renamedFrom?: string): string {
  const renamed = renamedFrom ? ` (MCP name "${renamedFrom}")` : '';
  switch (v.basis) {
    case 'meta':
      return ` class from _meta (exported by oneway): ${v.class}${v.needs_compensation ? '; TODO name its compensating_operation' : ''}${renamed}`;
    case 'read_only_hint':
      return ` ${hintsText(t)} → reversible, read_only; TODO: what does it verify (establish facts)?${renamed}`;
    case 'reversible_candidate':
      return ` ${hintsText(t)} → reversible CANDIDATE: TODO name its compensating_operation and compensation_args, or make it irreversible${renamed}`;
    case 'destructive_or_unknown':
      return ` ${hintsText(t)} → irreversible until reviewed: TODO is there a compensation (compensable), or an undo with the same authority (reversible)?${renamed}`;
  }
}

/**
 * Converts MCP tools to a scenario skeleton and its YAML.
 *
 * @example
 * const r = importMcpTools(toolsListOf(json).tools, { id: 'github', source: 'github-tools.json' });
 * writeFileSync('github.yaml', r.yaml);
 */
export function importMcpTools(mcpTools: readonly McpTool[], opts: ImportOptions = {}): ImportResult {
  const notes: string[] = [];
  const taken = new Set<string>();
  const renames = new Map<string, string>();
  for (const t of mcpTools) {
    const name = NAME.test(t.name) && !taken.has(t.name) ? t.name : toolName(t.name, taken);
    taken.add(name);
    if (name !== t.name) {
      renames.set(t.name, name);
      notes.push(`renamed "${t.name}" to "${name}" (oneway tool names are letters, digits, _ and -, at most 64)`);
    }
  }
  const tools: ImportedTool[] = mcpTools.map((t) => {
    const name = renames.get(t.name) ?? t.name;
    const v = classFromHints(t);
    const meta = t._meta ?? {};
    const tool: Record<string, unknown> = { name };
    const description = (t.description ?? t.annotations?.title ?? t.title ?? '').trim();
    if (description) tool.description = description;
    if (meta[META_KIND] === 'approval') tool.kind = 'approval';
    tool.reversibility = v.class;
    tool.review = true;
    if (v.read_only) tool.read_only = true;
    if (v.class === 'irreversible') tool.compensating_operation = null;
    const comp = meta[META_COMPENSATION];
    if (v.basis === 'meta' && typeof comp === 'string' && comp !== '' && !v.read_only && v.class !== 'irreversible') {
      const target = renames.get(comp) ?? comp;
      tool.compensating_operation = target;
      if (!taken.has(target)) notes.push(`${name}: its compensation ${comp} is not among the imported tools; declare it`);
      if (typeof meta[META_APPROVAL] === 'boolean') tool.compensation_requires_approval = meta[META_APPROVAL];
    }
    if (t.annotations?.idempotentHint !== undefined) tool.idempotent = t.annotations.idempotentHint;
    const pre = meta[META_PRECONDITIONS];
    if (Array.isArray(pre) && pre.every((p) => typeof p === 'string') && pre.length > 0) tool.preconditions = pre;
    tool.parameters = parametersOf(t);
    if (v.needs_compensation) notes.push(`${name}: reversible candidate with no compensating_operation: name one (and compensation_args), or make it irreversible`);
    const renamedFrom = renames.has(t.name) ? t.name : undefined;
    return { tool, verdict: v, ...(renamedFrom ? { renamedFrom } : {}), comment: commentFor(t, v, renamedFrom) };
  });

  const id = opts.id ?? 'imported-tools';
  const scenario: Record<string, unknown> = {
    id,
    title: `TODO: title (tools imported from ${opts.source ?? 'an MCP server'})`,
    task: 'TODO: the task a planner is given, in the words a user would use.',
    inputs: {},
    world: { facts: [], tables: {} },
    approvals: {},
    tools: tools.map((t) => t.tool),
    goal: ['todo_goal(outcome=TODO)'],
    max_steps: 20,
  };
  return { scenario, tools, yaml: toYaml(scenario, tools, opts), notes };
}

function parametersOf(t: McpTool): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = t.inputSchema as Record<string, unknown>;
  void _ignored;
  return { ...schema, type: 'object', properties: schema.properties ?? {}, ...(Array.isArray(schema.required) ? { required: schema.required } : {}) };
}

function toYaml(scenario: Record<string, unknown>, tools: readonly ImportedTool[], opts: ImportOptions): string {
  const doc = new Document(scenario);
  const header = [
    opts.schemaPath ? ` yaml-language-server: $schema=${opts.schemaPath}` : undefined,
    opts.schemaPath ? '' : undefined,
    ` Imported from an MCP tools/list${opts.source ? ` (${opts.source})` : ''} by \`npm run import\`.`,
    ' MCP hints are not a reversibility declaration: every tool is marked review: true.',
    ' For each tool: check its class as deployed, name compensations, add the',
    ' preconditions it needs and the effects it has, then remove review: true.',
    ' `npm run lint -- <this file>` lists what is left to review.',
  ].filter((l): l is string => l !== undefined);
  doc.commentBefore = header.join('\n');
  const root = doc.contents as YAMLMap;
  const seq = root.get('tools', true);
  if (isSeq(seq)) {
    seq.items.forEach((node, i) => {
      const t = tools[i];
      if (t && isMap(node)) node.commentBefore = t.comment;
    });
  }
  const goal = root.get('goal', true);
  if (isSeq(goal)) goal.commentBefore = ' TODO: the facts that must hold when the task is done (establish them with tool effects)';
  return doc.toString({ lineWidth: 0 });
}
