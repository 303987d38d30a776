/**
 * An MCP `tools/list` result as a oneway scenario skeleton: one tool
 * declaration per MCP tool, classed from its hints (or from `_meta` when it
 * came from `npm run export -- mcp`), every one marked `review: true`, with
 * placeholders for what only a human can say (task, goal, compensations,
 * preconditions, effects). The skeleton always loads and lints with warnings
 * only: a state-changing tool gets a reversible or compensable class only when a
 * create/delete partner among the imported tools can be named as its compensation
 * (else it stays irreversible, its comment says what would make it undoable), and
 * a placeholder goal is established by one callable tool (a read-only one when
 * there is one) so a planner can take a first step.
 */
import { Document, isMap, isSeq, type YAMLMap } from 'yaml';
import {
  classFromHints,
  META_APPROVAL,
  META_COMPENSATION,
  META_KIND,
  META_PRECONDITIONS,
  type McpTool,
  type McpVerdict,
} from './mcp.ts';
import { trimRuns } from '../../util/trim.ts';
import { fitsParameter } from '../../domain/rules/arguments.ts';
import { isStructured, minimalValue } from '../../util/param-types.ts';

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

/**
 * The oneway name of each MCP tool, by position: its own when it fits oneway's names and is not
 * taken yet, else `toolName`'s. What `oneway import` declares a server's tools as, and how
 * `oneway guard` finds the declaration of each tool the server lists.
 *
 * @example
 * onewayNames(['create_issue', 'repo.search']) // ['create_issue', 'repo_search']
 */
export function onewayNames(mcpNames: readonly string[]): string[] {
  const taken = new Set<string>();
  return mcpNames.map((n) => {
    const name = NAME.test(n) && !taken.has(n) ? n : toolName(n, taken);
    taken.add(name);
    return name;
  });
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
  const parts = (['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const)
    .filter((k) => a[k] !== undefined)
    .map((k) => `${k}: ${String(a[k])}`);
  return parts.length ? parts.join(', ') : 'no hints';
}

/** Text safe on one comment line: no line breaks or other control characters. */
function oneLine(text: string, max = 160): string {
  const t = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');
  return t.length > max ? `${t.slice(0, max - 3)}...` : t;
}

function commentFor(t: McpTool, v: McpVerdict, cls: string, partner: string | undefined, renamedFrom?: string): string {
  const renamed = renamedFrom ? ` (MCP name ${oneLine(JSON.stringify(renamedFrom))})` : '';
  const hints = hintsText(t);
  const lines: string[] = [];
  switch (v.basis) {
    case 'meta':
      lines.push(
        ` class from _meta (exported by oneway): ${cls}${v.needs_compensation && !partner && cls === 'irreversible' ? ` (the export said ${v.class} but named no compensation: TODO name it)` : ''}${renamed}`,
      );
      break;
    case 'read_only_hint':
      lines.push(` ${hints} → reversible, read_only; TODO: what does it verify (establish facts)?${renamed}`);
      break;
    case 'reversible_candidate':
      lines.push(
        partner
          ? ` ${hints} → ${cls} CANDIDATE, undone by ${partner} (guessed from the names): TODO check the pair and compensation_args${renamed}`
          : ` ${hints} → additive, yet irreversible until reviewed: TODO name the tool that undoes it (then compensable, or reversible with the same authority)${renamed}`,
      );
      break;
    case 'open_world':
      lines.push(
        partner
          ? ` ${hints} → compensable CANDIDATE (open world: never reversible), undone by ${partner} (guessed from the names): TODO check the pair and compensation_args${renamed}`
          : ` ${hints} → irreversible until reviewed (open world: its effect leaves the server): TODO is there a compensation (compensable)?${renamed}`,
      );
      break;
    case 'destructive_or_unknown':
      lines.push(
        ` ${hints} → irreversible until reviewed: TODO is there a compensation (compensable), or an undo with the same authority (reversible)?${renamed}`,
      );
      break;
  }
  if (t.outputSchema)
    lines.push(
      ` outputSchema: ${oneLine(JSON.stringify(t.outputSchema), 400)} (returns below is a skeleton of it: TODO values)`,
    );
  return lines.join('\n');
}

/** Verbs whose tools undo each other, as tool names spell them (create_entities ↔ delete_entities). */
const INVERSE: Record<string, readonly string[]> = {
  create: ['delete', 'remove'],
  add: ['remove', 'delete'],
  write: ['delete', 'remove'],
  insert: ['delete', 'remove'],
  upload: ['delete', 'remove'],
  attach: ['detach'],
  detach: ['attach'],
  enable: ['disable'],
  disable: ['enable'],
  grant: ['revoke'],
  assign: ['unassign'],
  link: ['unlink'],
  remove: ['add'],
  revoke: ['grant'],
  unassign: ['assign'],
  unlink: ['link'],
};

/** The imported tool that undoes `name`, by its name: create_X ↔ delete_X, add_X ↔ remove_X, write_X → delete_X. */
export function partnerOf(name: string, names: readonly string[]): string | undefined {
  const m = /^([a-z]+)([_-]?)(.*)$/i.exec(name);
  if (!m) return undefined;
  const [, verbRaw = '', sep = '', rest = ''] = m;
  // camelCase (createEntity) splits at the capital; snake/kebab at the separator; a bare verb is whole.
  const camel = sep === '' && rest === '' ? /^([a-z]+)([A-Z].*)$/.exec(name) : null;
  const verb = (camel ? camel[1] : verbRaw) ?? '';
  const tail = camel ? (camel[2] ?? '') : rest;
  if (sep === '' && tail !== '' && !camel) return undefined;
  const key = verb.toLowerCase();
  for (const inv of Object.hasOwn(INVERSE, key) ? (INVERSE[key] as readonly string[]) : []) {
    const spelt = verb === verb.toUpperCase() && verb !== verb.toLowerCase() ? inv.toUpperCase() : inv;
    const candidates = camel ? [`${spelt}${tail}`] : tail ? [`${spelt}${sep}${tail}`] : [spelt];
    const found = candidates.find((c) => c !== name && names.includes(c));
    if (found) return found;
  }
  return undefined;
}

const TEMPLATE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Guessed compensation_args: each required parameter of the compensation from an argument of the
 * same name, else from a result field of that name the tool's outputSchema declares. Nothing else is
 * guessed: a parameter neither gives is a TODO value to fill in (named in `missing`), never a
 * template over a field the reply does not have (`{{result.entityNames}}` where it has `entities`).
 */
function compensationArgs(t: McpTool, comp: McpTool): { args: Record<string, string>; missing: string[] } {
  const args: Record<string, string> = {};
  const missing: string[] = [];
  const own = Object.keys(t.inputSchema.properties ?? {});
  const outputs = t.outputSchema?.properties;
  const returned = outputs && typeof outputs === 'object' ? Object.keys(outputs) : [];
  for (const r of comp.inputSchema.required ?? []) {
    if (typeof r !== 'string') continue;
    if (own.includes(r) && TEMPLATE_NAME.test(r)) args[r] = `{{args.${r}}}`;
    else if (returned.includes(r) && TEMPLATE_NAME.test(r)) args[r] = `{{result.${r}}}`;
    else {
      args[r] =
        `TODO: ${oneLine(r, 60)} (no argument or declared result field of ${oneLine(t.name, 60)} has this name)`;
      missing.push(r);
    }
  }
  return { args, missing };
}

/** A skeleton reply from an outputSchema: one placeholder per declared property. */
function returnsOf(t: McpTool): Record<string, unknown> | undefined {
  const props = t.outputSchema?.properties;
  if (!props || typeof props !== 'object') return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(props)) {
    const type = (v as { type?: unknown } | null)?.type;
    const first = Array.isArray(type) ? type[0] : type;
    out[k] =
      first === 'integer' || first === 'number'
        ? 0
        : first === 'boolean'
          ? false
          : first === 'array'
            ? []
            : first === 'object'
              ? {}
              : first === 'null'
                ? null
                : 'TODO';
  }
  return out;
}

/**
 * Converts MCP tools to a scenario skeleton and its YAML.
 *
 * @example
 * const list = toolsListOf(json); // then, if list.ok:
 * const r = importMcpTools(list.value.tools, { id: 'github', source: 'github-tools.json' });
 * writeFileSync('github.yaml', r.yaml);
 */
export function importMcpTools(mcpTools: readonly McpTool[], opts: ImportOptions = {}): ImportResult {
  const notes: string[] = [];
  const renames = new Map<string, string>();
  // One name per tool, by position: two tools may share an MCP name.
  const names = onewayNames(mcpTools.map((t) => t.name));
  const taken = new Set(names);
  mcpTools.forEach((t, i) => {
    const name = names[i] as string;
    if (name === t.name) return;
    if (!renames.has(t.name)) renames.set(t.name, name);
    notes.push(`renamed "${t.name}" to "${name}" (oneway tool names are letters, digits, _ and -, at most 64)`);
  });
  const verdicts = mcpTools.map((t) => classFromHints(t));
  // The partner that undoes an additive tool, by name; reversible only when the partner is
  // additive too and has its own partner (a reversible tool's compensation must be reversible).
  const partners = mcpTools.map((t, i) => {
    const v = verdicts[i] as McpVerdict;
    const additive =
      v.basis === 'reversible_candidate' ||
      (v.basis === 'open_world' && t.annotations?.destructiveHint === false) ||
      (v.basis === 'meta' && v.needs_compensation);
    return additive ? partnerOf(names[i] as string, names) : undefined;
  });
  const plan = mcpTools.map((_t, i): { cls: McpVerdict['class']; partner?: number } => {
    const v = verdicts[i] as McpVerdict;
    const name = partners[i];
    const j = name === undefined ? -1 : names.indexOf(name);
    if ((v.basis === 'meta' && !v.needs_compensation) || v.read_only) return { cls: v.class };
    if (j < 0) return { cls: 'irreversible' };
    return { cls: v.basis === 'open_world' || v.class === 'compensable' ? 'compensable' : 'reversible', partner: j };
  });
  // A reversible tool's compensation must be reversible itself: downgrade until that holds.
  for (let changed = true; changed;) {
    changed = false;
    for (const c of plan)
      if (c.cls === 'reversible' && c.partner !== undefined && plan[c.partner]?.cls !== 'reversible') {
        c.cls = 'compensable';
        changed = true;
      }
  }
  const tools: ImportedTool[] = mcpTools.map((t, i) => {
    const name = names[i] as string;
    const v = verdicts[i] as McpVerdict;
    const { cls, partner } = plan[i] as { cls: McpVerdict['class']; partner?: number };
    const meta = t._meta ?? {};
    const tool: Record<string, unknown> = { name };
    const title = (t.title ?? t.annotations?.title ?? '').trim();
    const desc = (t.description ?? '').trim();
    const description = title && !desc.startsWith(title) ? (desc ? `${title}: ${desc}` : title) : desc;
    if (description) tool.description = description;
    if (meta[META_KIND] === 'approval') tool.kind = 'approval';
    tool.reversibility = cls;
    tool.review = true;
    if (v.read_only) tool.read_only = true;
    const comp = meta[META_COMPENSATION];
    if (v.basis === 'meta' && typeof comp === 'string' && comp !== '' && !v.read_only && v.class !== 'irreversible') {
      const target = renames.get(comp) ?? comp;
      if (taken.has(target) && target !== name) {
        tool.compensating_operation = target;
        if (typeof meta[META_APPROVAL] === 'boolean') tool.compensation_requires_approval = meta[META_APPROVAL];
      } else {
        tool.reversibility = 'irreversible';
        tool.compensating_operation = null;
        notes.push(
          `${name}: its compensation ${comp} is not among the imported tools; it is irreversible until you declare it`,
        );
      }
    } else if (partner !== undefined) {
      const p = mcpTools[partner] as McpTool;
      tool.compensating_operation = names[partner];
      const { args, missing } = compensationArgs(t, p);
      if (Object.keys(args).length > 0) tool.compensation_args = args;
      notes.push(
        `${name}: ${cls} candidate undone by ${names[partner]} (guessed from the names); check the pair and compensation_args`,
      );
      if (missing.length > 0)
        notes.push(
          `${name}: compensation_args ${missing.map((m) => JSON.stringify(m)).join(', ')} left TODO: ${names[partner]} requires ${missing.length === 1 ? 'it' : 'them'}, and no argument or declared result field of ${name} has ${missing.length === 1 ? 'that name' : 'those names'}`,
        );
    } else if (!v.read_only) {
      tool.compensating_operation = null;
      if (v.needs_compensation || v.basis === 'reversible_candidate')
        notes.push(
          `${name}: additive (destructiveHint false) but nothing undoes it among the imported tools: irreversible until you name its compensation`,
        );
    }
    if (t.annotations?.idempotentHint !== undefined) tool.idempotent = t.annotations.idempotentHint;
    const pre = meta[META_PRECONDITIONS];
    if (Array.isArray(pre) && pre.every((x) => typeof x === 'string') && pre.length > 0) tool.preconditions = pre;
    const parameters = parametersOf(t);
    const proposed = dedupeOn(tool, parameters);
    if (proposed) {
      tool.dedupe_on = proposed;
      notes.push(
        `${name}: irreversible with optional parameters: dedupe_on [${proposed.join(', ')}] proposed (its required parameters identify one effect, so a repeat that only adds an optional argument is still the same call); check it`,
      );
    }
    tool.parameters = parameters;
    const returns = returnsOf(t);
    if (returns) tool.returns = returns;
    const renamedFrom = name !== t.name ? t.name : undefined;
    const verdict: McpVerdict = { ...v, class: tool.reversibility as McpVerdict['class'], needs_compensation: false };
    return {
      tool,
      verdict,
      ...(renamedFrom ? { renamedFrom } : {}),
      comment: commentFor(
        t,
        v,
        String(tool.reversibility),
        partner !== undefined ? names[partner] : undefined,
        renamedFrom,
      ),
    };
  });

  const id = opts.id ?? 'imported-tools';
  const start = goalOf(tools);
  const scenario: Record<string, unknown> = {
    id,
    title: `TODO: title (tools imported from ${oneLine(opts.source ?? 'an MCP server')})`,
    task: 'TODO: the task a planner is given, in the words a user would use.',
    inputs: start.inputs,
    world: { facts: [], tables: {} },
    approvals: {},
    tools: tools.map((t) => t.tool),
    goal: [start.goal],
    max_steps: 20,
  };
  return { scenario, tools, yaml: toYaml(scenario, tools, opts, start.tool), notes };
}

/**
 * What `dedupe_on` to propose for an imported tool: its required parameters, when it is irreversible,
 * not read-only or idempotent, and has optional parameters too (without it a repeat that adds one,
 * a memo, would be another call; lint's irreversible-dedupe). None otherwise.
 */
function dedupeOn(tool: Record<string, unknown>, parameters: Record<string, unknown>): string[] | undefined {
  if (tool.reversibility !== 'irreversible' || tool.read_only === true || tool.idempotent === true) return undefined;
  const properties = Object.keys((parameters.properties as Record<string, unknown> | undefined) ?? {});
  const required = Array.isArray(parameters.required) ? (parameters.required as string[]) : [];
  const known = required.filter((r) => properties.includes(r));
  if (known.length === 0 || properties.length === known.length) return undefined;
  return known;
}

/**
 * A placeholder goal a planner can reach in one step: a fact the first read-only tool
 * establishes (else the first tool with a class to undo it, else the first tool), with inputs
 * for its required parameters no planner could fill otherwise (marked TODO).
 */
function goalOf(tools: readonly ImportedTool[]): { goal: string; inputs: Record<string, unknown>; tool: string } {
  const order = [
    ...tools.filter((t) => t.tool.read_only === true && t.tool.kind !== 'approval'),
    ...tools.filter(
      (t) => t.tool.read_only !== true && t.tool.kind !== 'approval' && t.tool.reversibility !== 'irreversible',
    ),
    ...tools.filter((t) => t.tool.kind !== 'approval'),
    ...tools,
  ];
  const chosen = order[0] as ImportedTool;
  const name = String(chosen.tool.name);
  const effects = Array.isArray(chosen.tool.effects) ? chosen.tool.effects : [];
  chosen.tool.effects = [...effects, { establish: `todo_goal_reached(tool=${name})` }];
  if (chosen.tool.kind === 'approval') chosen.tool.kind = 'action';
  const params = chosen.tool.parameters as { properties: Record<string, Record<string, unknown>>; required?: string[] };
  const inputs: Record<string, unknown> = {};
  for (const p of params.required ?? []) {
    const schema = params.properties[p] ?? {};
    if (schema.default !== undefined || isStructured(schema)) continue;
    const made =
      schema.type === 'string' && schema.enum === undefined && schema.const === undefined
        ? 'TODO'
        : minimalValue(schema);
    try {
      if (made !== undefined && fitsParameter(params, p, made)) inputs[p] = made;
    } catch {
      // a schema that does not compile: the loader says so
    }
  }
  return { goal: `todo_goal_reached(tool=${name})`, inputs, tool: name };
}

function parametersOf(t: McpTool): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = t.inputSchema as Record<string, unknown>;
  void _ignored;
  return {
    ...schema,
    type: 'object',
    properties: schema.properties ?? {},
    ...(Array.isArray(schema.required) ? { required: schema.required } : {}),
  };
}

function toYaml(
  scenario: Record<string, unknown>,
  tools: readonly ImportedTool[],
  opts: ImportOptions,
  goalTool: string,
): string {
  const doc = new Document(scenario);
  const header = [
    opts.schemaPath ? ` yaml-language-server: $schema=${opts.schemaPath}` : undefined,
    opts.schemaPath ? '' : undefined,
    ` Imported from an MCP tools/list${opts.source ? ` (${oneLine(opts.source)})` : ''} by \`oneway import\`.`,
    ' MCP hints are not a reversibility declaration: every tool is marked review: true.',
    ' For each tool: check its class as deployed, name compensations, add the',
    ' preconditions it needs and the effects it has, then remove review: true.',
    ' `npx oneway lint <this file>` lists what is left to review.',
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
  if (isSeq(goal))
    goal.commentBefore = ` TODO: the facts that must hold when the task is done (establish them with tool effects).\n A placeholder: ${oneLine(goalTool)} establishes it, so a planner can take a first step; replace it.`;
  const inputs = root.get('inputs', true);
  if (isMap(inputs) && inputs.items.length > 0)
    inputs.commentBefore = ` TODO: placeholder inputs for ${oneLine(goalTool)}'s required parameters; give real values`;
  return doc.toString({ lineWidth: 0 });
}
