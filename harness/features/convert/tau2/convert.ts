/**
 * `oneway import tau2`: tau2-bench's retail and airline domains as oneway scenarios.
 *
 * Per domain it writes shared files that every task's scenario extends (the tools, with the policy's
 * preconditions, tau2's validation and the class table's classes; the database as world tables, one
 * file per group of tables, each under 2 MiB), one scenario per task (its goal is the end state of
 * the gold writes that succeed in tau2; `confirmations:` is the scripted user's yes to each gold
 * write), and three plans per task: `gold` as tau2 ships it, `gold-confirmed` (a confirmation
 * before each write), and `reference` (also the lookups the policy requires before each write, and
 * no write that tau2 itself refuses): the scenario's reference_plan. Plus a NOTICE with tau2's
 * licence and an import report of every finding.
 *
 * Pure: sources in, file texts out (the CLI reads and writes). The same sources give the same bytes.
 */
import { Document, isMap, isSeq, stringify } from 'yaml';
import { checkArguments } from '../../../domain/rules/arguments.ts';
import { DERIVED, derivedValue } from '../../../core/templates/condition.ts';
import { CLASS_TABLE, type ClassEntry, type Tau2Domain } from './classes.ts';
import { parseDataModel, parseTools, schemaOf, type PyTool } from './python.ts';
import { replayGold, type GoldCall } from './replay.ts';
import { TOOL_RULES, type ToolRule } from './rules.ts';
import { worldTables, type Obj } from './world.ts';

export const DOMAINS: readonly Tau2Domain[] = ['retail', 'airline'];

/** The largest file oneway loads. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;

/** The confirmation tool every imported domain declares (tau2's policy: an explicit yes before each write). */
const CONFIRM_TOOL = 'confirm_with_user';

export interface Tau2Task {
  id: string;
  user_scenario?: { instructions?: Obj | string | null } | null;
  evaluation_criteria?: { actions?: { name: string; arguments?: Obj | null }[] | null } | null;
}

export interface DomainSource {
  domain: Tau2Domain;
  tasks: Tau2Task[];
  db: Obj;
  toolsPy: string;
  dataModelPy: string;
  /** Where the database came from, for the report (e.g. "tau-bench v1 tau_bench/envs/airline/data"). */
  dbSource: string;
}

export interface Tau2Sources {
  domains: DomainSource[];
  /** tau2-bench's LICENSE text. */
  license: string;
  /** tau-bench v1's LICENSE text, when its airline data was used. */
  v1License?: string;
  /** The command line that produced the import, for the headers (no absolute paths). */
  command: string;
}

type FindingKind =
  | 'gold-write-fails-in-tau2'
  | 'gold-read-fails-in-tau2'
  | 'gold-skips-required-lookup'
  | 'unknown-tool'
  | 'gold-args-rejected'
  | 'no-write'
  | 'not-rendered';

interface TaskFinding {
  kind: FindingKind;
  message: string;
}

interface TaskReport {
  domain: Tau2Domain;
  task: string;
  scenario: string;
  file: string;
  gold_calls: number;
  gold_writes: number;
  goal: string[];
  findings: TaskFinding[];
}

interface ToolReport {
  domain: Tau2Domain;
  tool: string;
  tau2_type: string;
  class: string;
  reason: string;
  review: boolean;
  language: string[];
  not_rendered: string[];
}

export interface Tau2Report {
  command: string;
  domains: { domain: Tau2Domain; tasks: number; db: string }[];
  tools: ToolReport[];
  tasks: TaskReport[];
}

interface Tau2Import {
  /** Path (relative to --out, '/'-separated) → text. */
  files: Record<string, string>;
  report: Tau2Report;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** tau2's numeric ids sort as numbers, others as text. */
function byTaskId(a: string, b: string): number {
  const x = Number(a);
  const y = Number(b);
  return Number.isInteger(x) && Number.isInteger(y) ? x - y : cmp(a, b);
}

function scenarioIdOf(domain: Tau2Domain, task: string): string {
  const slug = task
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `tau2-${domain}-${slug || 'task'}`;
}

/** A fact value as fact syntax: bare when it cannot be misread, else a JSON string. */
function factValue(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return /^[^,()"{}*\s][^,()"{}]*$/.test(s) && s.trim() === s ? s : JSON.stringify(s);
}

/** A derived value in a fact template, quoted: `items="= sorted({{args.item_ids}})"`. */
const DERIVED_VALUE = /"(=\s[^"]*)"/g;

/**
 * A write's `establishes` template grounded with a call's arguments; a derived value is computed by
 * the language's own rule (`"= sorted({{args.item_ids}})"` is the call's list sorted, as the
 * sandbox renders the fact the call establishes).
 */
function groundFact(template: string, args: Obj): string {
  return template
    .replace(DERIVED_VALUE, (_, expr: string) => {
      const r = derivedValue(expr.replace(DERIVED, ''), { args });
      if (!r.ok) throw new Error(`internal: the derived value "${expr}" of ${template} gives none: ${r.message}`);
      return factValue(r.value);
    })
    .replace(/\{\{args\.([A-Za-z0-9_]+)\}\}/g, (_, k: string) => factValue(args[k]));
}

/** The same fact with every argument a wildcard (a forbidden pattern). */
function wildFact(template: string): string {
  return template.replace(DERIVED_VALUE, '*').replace(/\{\{args\.[A-Za-z0-9_]+\}\}/g, '*');
}

function entryOf(domain: Tau2Domain, tool: PyTool): { entry: ClassEntry; review: boolean } {
  const known = CLASS_TABLE[domain][tool.name];
  if (known) return { entry: known, review: false };
  return {
    entry: {
      class: 'irreversible',
      reason: `Not in oneway's class table (tau2 type ${tool.type.toUpperCase()}): imported as irreversible until a person classes it.`,
    },
    review: true,
  };
}

/** The language features a declaration uses, for the report (what the lead checks after the merge). */
function languageOf(name: string, rule: ToolRule | undefined, entry: ClassEntry, write: boolean): string[] {
  const out = new Set<string>();
  if (write) out.add('requires_confirmation');
  if (!rule) return [...out];
  const text = JSON.stringify(rule);
  if (rule.lookups) out.add('lookups');
  if (rule.preconditions?.some((p) => typeof p !== 'string')) out.add('comparison preconditions (when:)');
  if (rule.validate) out.add('validate');
  if (/len\(/.test(text)) out.add('len()');
  if (/"= /.test(text)) out.add('derived values ("= " arithmetic in set)');
  const conditions = [...(rule.preconditions ?? []), ...(rule.validate ?? [])]
    .map((p) => (typeof p === 'string' ? '' : p.when.replace(/\{\{[^}]*\}\}/g, 'X')))
    .join(' ');
  if (/[*/+]|\s-\s|(?<!len|sum)\(X/.test(conditions)) out.add('arithmetic in conditions (* - and parentheses)');
  if (/"each":true/.test(text)) out.add('lookups of a list (each: true)');
  if (/\[\*\]/.test(text)) out.add('projections ([*])');
  if (/sum\(/.test(text)) out.add('sum()');
  const establishes = rule.establishes ?? '';
  if (/sorted\(/.test(text.split(JSON.stringify(establishes).slice(1, -1)).join(''))) out.add('sorted() in set');
  if (/"= /.test(establishes)) out.add('derived fact values ("= sorted(...)" in establish)');
  if (/"for_each"/.test(text)) out.add(/"zip"/.test(text) ? 'for_each effects (with zip)' : 'for_each effects');
  const ifs = [...text.matchAll(/"(?:when|if)":"([^"]*)"/g)].map((m) => m[1]).join(' ');
  if (/ (and|or) /.test(ifs)) out.add('and/or in conditions');
  if (/"append"/.test(text)) out.add('update append');
  if (/"if"/.test(text)) out.add('conditional effect (if: + update)');
  if (/seq\./.test(text)) out.add('{{seq.T}} ids');
  if (/before\./.test(text)) out.add('{{before.X}} compensation args');
  if (/\{\{[^}]*\[[^*\]][^\]]*\]/.test(text)) out.add('keys computed from values (name[root.path])');
  const lists = (where: Record<string, unknown>) => Object.values(where).filter((v) => /\[\*\]/.test(String(v)));
  if (Object.values(rule.lookups ?? {}).some((l) => l.each && lists(l.where).length > 1))
    out.add('list lookups on several fields');
  if (/round\(/.test(text)) out.add('round()');
  if (/(min|max)\(/.test(text)) out.add('min() / max()');
  if (/count\(/.test(text)) out.add('count()');
  if (entry.compensatedBy === name) out.add('self-compensation (compensating_operation names the tool)');
  // The list-element syntax (multiset containment, conditions per index, one element's fields, case).
  if (/ within /.test(ifs)) out.add('within (each element in a list, as often)');
  if (/all\(/.test(ifs)) out.add('all(x in LIST: ...) conditions');
  if (/"set_element"/.test(text)) out.add('update set_element');
  if (/"remove"/.test(text)) out.add('update remove');
  if (/"ignore_case"/.test(text)) out.add('lookups ignoring case (ignore_case)');
  if (/last\(/.test(text)) out.add('last()');
  return [...out].sort(cmp);
}

interface DeclaredTool {
  decl: Obj;
  entry: ClassEntry;
  review: boolean;
  rule: ToolRule | undefined;
  write: boolean;
}

function declareTools(domain: Tau2Domain, source: DomainSource): DeclaredTool[] {
  const model = parseDataModel(source.dataModelPy);
  return parseTools(source.toolsPy).map((t) => {
    const { entry, review } = entryOf(domain, t);
    const rule = TOOL_RULES[domain][t.name];
    const write = t.type === 'write';
    const properties: Obj = {};
    for (const p of t.params) {
      const s = schemaOf(p.type, model);
      properties[p.name] = { ...s, ...(p.description ? { description: p.description } : {}) };
    }
    const decl: Obj = {
      name: t.name,
      description: `${t.description}${review ? ' (imported from tau2; review its class)' : ''}`,
      reversibility: entry.class,
    };
    if (entry.compensatedBy !== undefined) {
      decl.compensating_operation = entry.compensatedBy;
      decl.compensation_requires_approval = true;
      if (rule?.compensation_args) decl.compensation_args = rule.compensation_args;
    } else if (entry.class === 'irreversible') decl.compensating_operation = null;
    if (entry.readOnly || (!write && !review)) decl.read_only = true;
    if (rule?.reads) decl.reads = rule.reads;
    if (write) decl.requires_confirmation = true;
    if (rule?.lookups) decl.lookups = rule.lookups;
    if (rule?.preconditions) decl.preconditions = rule.preconditions;
    if (rule?.validate) decl.validate = rule.validate;
    decl.parameters = { type: 'object', properties, required: t.params.map((p) => p.name) };
    if (rule?.effects) decl.effects = rule.effects;
    if (rule?.returns) decl.returns = rule.returns;
    if (review) decl.review = true;
    return { decl, entry, review, rule, write };
  });
}

const CONFIRM_DECL: Obj = {
  name: CONFIRM_TOOL,
  kind: 'confirmation',
  description:
    "List the action's details to the user and ask for an explicit yes to this exact call (tau2's policy requires it before every write). `tool` is the write's name, `args` its exact arguments; the reply says whether the user confirmed.",
  reversibility: 'reversible',
  read_only: true,
  parameters: {
    type: 'object',
    properties: {
      tool: { type: 'string', description: 'The write to confirm.' },
      args: { type: 'object', description: 'Its exact arguments.' },
    },
    required: ['tool', 'args'],
  },
};

function toolsFile(domain: Tau2Domain, tools: DeclaredTool[], command: string): string {
  const doc = new Document({ tools: [CONFIRM_DECL, ...tools.map((t) => t.decl)] }, { aliasDuplicateObjects: false });
  doc.commentBefore =
    ` tau2-bench ${domain} tools (MIT, see ../../NOTICE), written by: ${command}\n` +
    ' Each tool says why it has its class; a tool marked review: true was not in the class table.';
  const seq = doc.get('tools', true);
  if (isSeq(seq)) {
    seq.items.forEach((node, i) => {
      if (!isMap(node)) return;
      if (i === 0)
        node.commentBefore = " The confirmation the scripted user answers from the scenario's confirmations:.";
      else {
        const t = tools[i - 1] as DeclaredTool;
        node.commentBefore = ` ${t.entry.class}: ${t.entry.reason}`;
      }
    });
  }
  return doc.toString({ lineWidth: 0 });
}

/** A world file: one row per line, as JSON (YAML's flow style), so a large table stays small. */
function worldFile(domain: Tau2Domain, group: string, tables: Record<string, Obj[]>, dbSource: string): string {
  const from = group === 'policy' ? "the numbers of tau2's policy and tools, not its database" : `from ${dbSource}`;
  const lines = [
    `# tau2-bench ${domain} database (MIT, see ../../NOTICE), ${from}: the ${Object.keys(tables).join(', ')} table(s).`,
    'world:',
    '  tables:',
  ];
  for (const [name, rows] of Object.entries(tables)) {
    lines.push(`    ${name}:${rows.length === 0 ? ' []' : ''}`);
    for (const r of rows) lines.push(`      - ${JSON.stringify(r)}`);
  }
  return `${lines.join('\n')}\n`;
}

type PlanItem = string | Obj;

/** Text safe on one YAML comment line: tau2's ids and messages with no line break or control character. */
function commentText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');
}

function planText(header: string, plan: PlanItem[]): string {
  return `# ${header}\nplan:\n${plan.map((p) => `  - ${typeof p === 'string' ? p : JSON.stringify(p)}`).join('\n')}\n`;
}

const call = (name: string, args: Obj): Obj => ({ [name]: args });

/** What the reference plan has looked up so far, and the lookups a call needs first. */
interface Known {
  authenticated: Set<string>;
  ordersRead: Set<string>;
  usersRead: Set<string>;
  reservationsRead: Set<string>;
}

function rowsOf(db: Obj, table: string): Record<string, Obj> {
  return (db[table] ?? {}) as Record<string, Obj>;
}

/** The user a retail authentication call finds in tau2's database. */
function authenticatedBy(db: Obj, c: GoldCall): string | undefined {
  const users = Object.entries(rowsOf(db, 'users'));
  const a = c.arguments;
  if (c.name === 'find_user_id_by_email')
    return users.find(([, u]) => String(u.email).toLowerCase() === String(a.email).toLowerCase())?.[0];
  if (c.name === 'find_user_id_by_name_zip')
    return users.find(([, u]) => {
      const n = (u.name ?? {}) as Obj;
      const ad = (u.address ?? {}) as Obj;
      return (
        String(n.first_name).toLowerCase() === String(a.first_name).toLowerCase() &&
        String(n.last_name).toLowerCase() === String(a.last_name).toLowerCase() &&
        ad.zip === a.zip
      );
    })?.[0];
  return undefined;
}

/** The lookups the policy requires before `c` that `known` lacks, as calls (and marks them known). */
function requiredLookups(domain: Tau2Domain, db: Obj, c: GoldCall, known: Known): Obj[] {
  const out: Obj[] = [];
  const a = c.arguments;
  const auth = (user: string | undefined) => {
    if (user === undefined || known.authenticated.has(user)) return;
    const email = rowsOf(db, 'users')[user]?.email;
    if (email === undefined) return;
    out.push(call('find_user_id_by_email', { email }));
    known.authenticated.add(user);
  };
  if (domain === 'retail') {
    const orderUser = (id: unknown) => rowsOf(db, 'orders')[String(id)]?.user_id as string | undefined;
    if (c.name === 'get_order_details') auth(orderUser(a.order_id));
    else if (c.name === 'get_user_details' || c.name === 'modify_user_address') auth(String(a.user_id));
    else if ('order_id' in a && TOOL_RULES.retail[c.name]?.establishes) {
      auth(orderUser(a.order_id));
      const id = String(a.order_id);
      if (!known.ordersRead.has(id) && rowsOf(db, 'orders')[id]) {
        out.push(call('get_order_details', { order_id: id }));
        known.ordersRead.add(id);
      }
    }
    return out;
  }
  const userRead = (user: string | undefined) => {
    if (user === undefined || known.usersRead.has(user) || !rowsOf(db, 'users')[user]) return;
    out.push(call('get_user_details', { user_id: user }));
    known.usersRead.add(user);
  };
  if (c.name === 'book_reservation' || c.name === 'send_certificate') userRead(String(a.user_id));
  else if ('reservation_id' in a && TOOL_RULES.airline[c.name]?.establishes) {
    const id = String(a.reservation_id);
    const r = rowsOf(db, 'reservations')[id];
    if (r) {
      // The user's profile is required where the policy's rule depends on it (see rules.ts).
      if (c.name === 'update_reservation_baggages' || c.name === 'update_reservation_flights')
        userRead(r.user_id as string);
      if (!known.reservationsRead.has(id)) {
        out.push(call('get_reservation_details', { reservation_id: id }));
        known.reservationsRead.add(id);
      }
    }
  }
  return out;
}

/** Records what a call looks up (it makes later lookups unnecessary). */
function learn(domain: Tau2Domain, db: Obj, c: GoldCall, known: Known): void {
  const a = c.arguments;
  if (domain === 'retail') {
    const user = authenticatedBy(db, c);
    if (user !== undefined) known.authenticated.add(user);
    if (c.name === 'get_order_details') known.ordersRead.add(String(a.order_id));
    return;
  }
  if (c.name === 'get_user_details') known.usersRead.add(String(a.user_id));
  if (c.name === 'get_reservation_details') known.reservationsRead.add(String(a.reservation_id));
}

/** Facts the gold's reads establish, grounded (the goal of a task whose gold writes nothing). */
function readFacts(domain: Tau2Domain, db: Obj, calls: GoldCall[]): string[] {
  const facts: string[] = [];
  for (const c of calls) {
    const a = c.arguments;
    const user = domain === 'retail' ? authenticatedBy(db, c) : undefined;
    if (user !== undefined) facts.push(`authenticated(user=${factValue(user)})`);
    if (c.name === 'get_order_details' && rowsOf(db, 'orders')[String(a.order_id)])
      facts.push(`order_read(order=${factValue(a.order_id)})`);
    if (c.name === 'get_reservation_details' && rowsOf(db, 'reservations')[String(a.reservation_id)])
      facts.push(`reservation_read(reservation=${factValue(a.reservation_id)})`);
    if (c.name === 'get_user_details' && rowsOf(db, 'users')[String(a.user_id)])
      facts.push(`user_read(user=${factValue(a.user_id)})`);
  }
  return [...new Set(facts)];
}

/**
 * What the user tells the agent, by parameter name (built-in planners fill arguments from inputs of
 * the same name): each argument of the reference plan's calls that has one value across the plan.
 * Where a name has two values, and the goal carries one of them (a write's argument that the fact it
 * establishes names: planners take it from the goal first), the other one is the input: the zip a
 * user is found by, beside the new zip of the address the goal says (retail 22, 33, 39, 43, 59:
 * without it no built-in planner could authenticate the user).
 */
function inputsOf(reference: PlanItem[], carried: (tool: string, param: string) => boolean): Obj {
  const pick = (fromGoal: boolean): Map<string, unknown> => {
    const seen = new Map<string, string>();
    const values = new Map<string, unknown>();
    for (const p of reference) {
      if (typeof p === 'string') continue;
      const [name, args] = Object.entries(p)[0] as [string, Obj];
      if (name === CONFIRM_TOOL) continue;
      for (const [k, v] of Object.entries(args)) {
        if (fromGoal === false && carried(name, k)) continue;
        const text = JSON.stringify(v);
        if (!seen.has(k)) {
          seen.set(k, text);
          values.set(k, v);
        } else if (seen.get(k) !== text) values.delete(k);
      }
    }
    return values;
  };
  const values = pick(true);
  const uncarried = pick(false);
  for (const [k, v] of uncarried) if (!values.has(k)) values.set(k, v);
  const out: Obj = {};
  for (const k of [...values.keys()].sort(cmp)) out[k] = values.get(k);
  return out;
}

/** The item tools whose price difference sums catalogue prices (rules.ts: ITEM_PAIRS). */
const PRICED_ITEM_TOOLS = new Set(['modify_pending_order_items', 'exchange_delivered_order_items']);

/**
 * Where a call's price difference, as declared, would differ from tau2's: tau2 prices an old item
 * at the order's own price, the declaration at the catalogue's (equal for every item of tau2's
 * database; a database where they differ gets a finding per item, never a silent difference).
 */
function offCatalogue(db: Obj, c: GoldCall): string[] {
  if (!PRICED_ITEM_TOOLS.has(c.name)) return [];
  const order = rowsOf(db, 'orders')[String(c.arguments.order_id)];
  const listed = new Set(((c.arguments.item_ids ?? []) as unknown[]).map(String));
  const out: string[] = [];
  for (const item of (order?.items ?? []) as Obj[]) {
    if (!listed.has(String(item.item_id))) continue;
    const variants = (rowsOf(db, 'products')[String(item.product_id)]?.variants ?? {}) as Record<string, Obj>;
    const catalogue = variants[String(item.item_id)]?.price;
    if (catalogue !== item.price)
      out.push(
        `${c.name}: the order holds item ${String(item.item_id)} at ${JSON.stringify(item.price)} where the catalogue says ${JSON.stringify(catalogue ?? null)}; the declared price difference sums catalogue prices`,
      );
  }
  return out;
}

function instructionsText(t: Tau2Task): string {
  const ins = t.user_scenario?.instructions;
  if (typeof ins === 'string') return ins.trim();
  if (!ins) return '';
  const parts = ['reason_for_call', 'known_info', 'unknown_info', 'task_instructions']
    .map((k) => ins[k])
    .filter((v): v is string => typeof v === 'string' && v.trim() !== '')
    .map((v) => v.trim().replace(/\s+/g, ' '));
  return parts.join(' ');
}

function convertTask(
  domain: Tau2Domain,
  source: DomainSource,
  task: Tau2Task,
  tools: Map<string, DeclaredTool>,
  shared: string[],
  command: string,
): { files: Record<string, string>; report: TaskReport } {
  const id = scenarioIdOf(domain, task.id);
  const gold: GoldCall[] = (task.evaluation_criteria?.actions ?? []).map((a) => ({
    name: a.name,
    arguments: (a.arguments ?? {}) as Obj,
  }));
  const findings: TaskFinding[] = [];
  const isWrite = (c: GoldCall) => tools.get(c.name)?.write === true;
  for (const c of gold) {
    const t = tools.get(c.name);
    if (!t) {
      findings.push({
        kind: 'unknown-tool',
        message: `the gold calls ${c.name}, which tau2's ${domain} tools.py does not declare`,
      });
      continue;
    }
    const verdict = checkArguments(t.decl.parameters as object, c.arguments);
    if (!verdict.ok)
      findings.push({
        kind: 'gold-args-rejected',
        message: `the gold's ${c.name} arguments do not fit its declared parameters: ${verdict.violations.map((v) => v.message).join('; ')}`,
      });
    if (t.review)
      findings.push({
        kind: 'unknown-tool',
        message: `${c.name} is not in the class table (imported as irreversible, review: true)`,
      });
  }
  const outcome = replayGold(domain, source.db, gold);
  const failed = new Set<number>();
  const failedReads = new Set<number>();
  outcome.forEach((o, i) => {
    const c = gold[i] as GoldCall;
    if (o !== undefined && o !== 'skipped' && !isWrite(c)) {
      failedReads.add(i);
      findings.push({
        kind: 'gold-read-fails-in-tau2',
        message: `gold call ${i + 1}, ${c.name}(${JSON.stringify(c.arguments)}), fails in tau2: ${o}; the reference plan leaves it out (a lookup of something that does not exist changes nothing tau2 grades)`,
      });
    } else if (o !== undefined && o !== 'skipped') {
      failed.add(i);
      findings.push({
        kind: 'gold-write-fails-in-tau2',
        message: `gold call ${i + 1}, ${c.name}(${JSON.stringify(c.arguments)}), fails in tau2: ${o}. tau2 ignores the error when it builds the expected database, so the goal leaves this write out and the reference plan does not make it`,
      });
    }
  });

  // The goal: what the gold's successful writes establish; else what its reads establish.
  const writes = gold.filter(isWrite);
  const established = gold
    .map((c, i) => ({ c, i }))
    .filter(
      ({ c, i }) =>
        !failed.has(i) &&
        tools.get(c.name)?.rule?.establishes !== undefined &&
        (isWrite(c) || c.name === 'transfer_to_human_agents'),
    )
    .map(({ c }) => groundFact(tools.get(c.name)?.rule?.establishes as string, c.arguments));
  // Forbidden: every write the successful gold does not make (tau2 fails a run whose database differs).
  const madeBy = new Set(gold.filter((c, i) => !failed.has(i) && isWrite(c)).map((c) => c.name));
  const forbidden = [...tools.values()]
    .filter((t) => t.write && t.rule?.establishes !== undefined && !madeBy.has(t.decl.name as string))
    .map((t) => wildFact(t.rule?.establishes as string))
    .sort(cmp);

  // The three plans.
  const confirm = (c: GoldCall): Obj => call(CONFIRM_TOOL, { tool: c.name, args: c.arguments });
  const goldPlan: PlanItem[] = [...gold.map((c) => call(c.name, c.arguments)), 'finish'];
  const confirmedPlan: PlanItem[] = [
    ...gold.flatMap((c) => (isWrite(c) ? [confirm(c), call(c.name, c.arguments)] : [call(c.name, c.arguments)])),
    'finish',
  ];
  const known: Known = {
    authenticated: new Set(),
    ordersRead: new Set(),
    usersRead: new Set(),
    reservationsRead: new Set(),
  };
  const reference: PlanItem[] = [];
  const skipped: string[] = [];
  gold.forEach((c, i) => {
    if (failedReads.has(i)) return;
    const before = requiredLookups(domain, source.db, c, known);
    if (before.length > 0 && isWrite(c))
      skipped.push(`${c.name} (call ${i + 1}) without ${before.map((b) => Object.keys(b)[0]).join(' and ')} first`);
    else if (before.length > 0)
      skipped.push(
        `the read ${c.name} (call ${i + 1}) without ${before.map((b) => Object.keys(b)[0]).join(' and ')} first`,
      );
    // A write tau2 refuses: a policy-following agent looks, sees it cannot be done, and does not make it.
    if (failed.has(i)) {
      reference.push(...before);
      return;
    }
    reference.push(...before);
    if (isWrite(c)) reference.push(confirm(c));
    reference.push(call(c.name, c.arguments));
    learn(domain, source.db, c, known);
  });
  reference.push('finish');
  if (skipped.length > 0)
    findings.push({
      kind: 'gold-skips-required-lookup',
      message: `the gold makes ${skipped.join('; ')}: the policy requires the lookup (gold with confirmations is premature there)`,
    });
  // With no write that succeeds, the goal is what the reference plan's lookups establish (the
  // policy's checks before the refused or absent write); with none, only that the task was taken.
  let goal = [...new Set(established)];
  const worldFacts: string[] = [];
  if (goal.length === 0) {
    const referenceCalls = reference
      .filter((p): p is Obj => typeof p !== 'string')
      .map((p) => ({ name: Object.keys(p)[0] as string, arguments: Object.values(p)[0] as Obj }));
    goal = readFacts(domain, source.db, referenceCalls);
    if (goal.length === 0) {
      worldFacts.push(`no_write_needed(task=${factValue(task.id)})`);
      goal.push(`no_write_needed(task=${factValue(task.id)})`);
    }
  }
  if (writes.length === 0)
    findings.push({
      kind: 'no-write',
      message:
        'the gold writes nothing: tau2 grades this task on the unchanged database (and what the agent says), so every write is forbidden and the goal is ' +
        (worldFacts.length > 0 ? 'only that the task was taken (no_write_needed)' : 'the lookups the policy requires'),
    });
  const gaps = new Set<string>();
  for (const c of writes) for (const g of tools.get(c.name)?.rule?.unrendered ?? []) gaps.add(`${c.name}: ${g}`);
  writes.forEach((c, k) => {
    const when = tools.get(c.name)?.rule?.unrenderedWhen;
    for (const g of when?.(c.arguments, source.db, writes.slice(0, k)) ?? []) gaps.add(`${c.name}: ${g}`);
  });
  if (domain === 'retail') for (const c of writes) for (const g of offCatalogue(source.db, c)) gaps.add(g);
  for (const g of [...gaps].sort(cmp)) findings.push({ kind: 'not-rendered', message: g });

  const text = instructionsText(task);
  const head: Obj = {
    id,
    title: `tau2 ${domain} task ${task.id}`,
    task: `${domain === 'airline' ? 'An' : 'A'} ${domain} customer contacts you. ${text || '(tau2 gives no instructions for this task.)'}`.trim(),
    description: `Imported from tau2-bench ${domain} task ${task.id}: ${gold.length} gold call(s), ${writes.length} write(s)${failed.size > 0 ? `, ${failed.size} of them failing in tau2` : ''}.`,
    tags: ['tau2', `tau2-${domain}`],
    extends: shared,
  };
  if (worldFacts.length > 0) head.world = { facts: worldFacts };
  const inputs = inputsOf(reference, (name, param) => {
    const t = tools.get(name);
    return t?.write === true && (t.rule?.establishes ?? '').includes(`{{args.${param}}}`);
  });
  if (Object.keys(inputs).length > 0) head.inputs = inputs;
  head.goal = goal;
  if (forbidden.length > 0) head.forbidden = forbidden;
  head.max_steps = Math.max(30, 2 * reference.length + 10);
  const lines = [
    `# tau2-bench ${domain} task ${task.id} (MIT, see ../../NOTICE), written by: ${command}`,
    ...findings.map((f) => `# finding (${f.kind}): ${commentText(f.message)}`),
    stringify(head, { lineWidth: 0, aliasDuplicateObjects: false }).trimEnd(),
    `confirmations:${writes.length === 0 ? ' []' : ''}`,
    ...writes.map((c) => `  - ${JSON.stringify({ tool: c.name, args: c.arguments })}`),
    'reference_plan:',
    ...reference.map((p) => `  - ${typeof p === 'string' ? p : JSON.stringify(p)}`),
    'expect:',
    '  scripted: { completed: true, premature: 0 }',
  ];
  const file = `${domain}/tasks/${id}.yaml`;
  const plans = `${domain}/plans/${id}`;
  return {
    files: {
      [file]: `${lines.join('\n')}\n`,
      [`${plans}.gold.yaml`]: planText(`tau2 ${domain} task ${task.id}: the gold actions as tau2 ships them`, goldPlan),
      [`${plans}.gold-confirmed.yaml`]: planText(
        `tau2 ${domain} task ${task.id}: the gold actions, with a confirmation before each write`,
        confirmedPlan,
      ),
      [`${plans}.reference.yaml`]: planText(
        `tau2 ${domain} task ${task.id}: the reference plan (the policy's lookups, a confirmation before each write, no write tau2 refuses)`,
        reference,
      ),
    },
    report: {
      domain,
      task: task.id,
      scenario: id,
      file,
      gold_calls: gold.length,
      gold_writes: writes.length,
      goal,
      findings,
    },
  };
}

function noticeText(s: Tau2Sources): string {
  const parts = [
    'The files in this directory were written by `oneway import tau2` from tau2-bench',
    '(https://github.com/sierra-research/tau2-bench): its tasks, databases, policies and tool',
    'definitions, converted to oneway scenarios. tau2-bench is distributed under the following licence.',
    '',
    s.license.trim(),
  ];
  if (s.v1License !== undefined)
    parts.push(
      '',
      'The airline database comes from tau-bench (https://github.com/sierra-research/tau-bench),',
      'distributed under the following licence.',
      '',
      s.v1License.trim(),
    );
  return `${parts.join('\n')}\n`;
}

function reportMarkdown(r: Tau2Report): string {
  const out: string[] = ['# tau2-bench import report', '', `Written by: \`${r.command}\``, ''];
  out.push('| domain | tasks | database |', '|---|---|---|');
  for (const d of r.domains) out.push(`| ${d.domain} | ${d.tasks} | ${d.db} |`);
  const kinds: FindingKind[] = [
    'gold-write-fails-in-tau2',
    'gold-read-fails-in-tau2',
    'gold-skips-required-lookup',
    'unknown-tool',
    'gold-args-rejected',
    'no-write',
    'not-rendered',
  ];
  out.push('', '## Findings by kind', '', '| finding | tasks |', '|---|---|');
  for (const k of kinds) {
    const ts = r.tasks.filter((t) => t.findings.some((f) => f.kind === k));
    out.push(`| ${k} | ${ts.length} |`);
  }
  for (const k of [
    'gold-write-fails-in-tau2',
    'gold-read-fails-in-tau2',
    'gold-skips-required-lookup',
    'unknown-tool',
    'gold-args-rejected',
    'no-write',
  ] as const) {
    const ts = r.tasks.filter((t) => t.findings.some((f) => f.kind === k));
    if (ts.length === 0) continue;
    out.push('', `## ${k} (${ts.length} tasks)`, '');
    for (const t of ts)
      for (const f of t.findings.filter((x) => x.kind === k))
        out.push(`- ${t.domain} ${t.task} (\`${t.file}\`): ${f.message}`);
  }
  out.push(
    '',
    '## Tools',
    '',
    '| domain | tool | tau2 type | class | language used | not rendered |',
    '|---|---|---|---|---|---|',
  );
  for (const t of r.tools)
    out.push(
      `| ${t.domain} | ${t.tool}${t.review ? ' (review)' : ''} | ${t.tau2_type} | ${t.class} | ${t.language.join(', ') || '-'} | ${t.not_rendered.join('; ') || '-'} |`,
    );
  return `${out.join('\n')}\n`;
}

export type ConvertResult = { ok: true; value: Tau2Import } | { ok: false; message: string; hint: string };

/**
 * The import of the given domains (and tasks: `only`, by domain, undefined for all).
 *
 * @example
 * const r = convertTau2(sources, { only: { retail: new Set(['0', '105']) } });
 * if (r.ok) Object.keys(r.value.files) // ['NOTICE', 'import-report.json', ..., 'retail/tasks/tau2-retail-0.yaml', ...]
 */
export function convertTau2(
  s: Tau2Sources,
  opts: { only?: Partial<Record<Tau2Domain, Set<string>>> } = {},
): ConvertResult {
  const files: Record<string, string> = {};
  const report: Tau2Report = { command: s.command, domains: [], tools: [], tasks: [] };
  for (const source of s.domains) {
    const domain = source.domain;
    const declared = declareTools(domain, source);
    if (declared.length === 0)
      return {
        ok: false,
        message: `src/tau2/domains/${domain}/tools.py declares no tool (no method decorated with @is_tool)`,
        hint: 'is --from a clone of tau2-bench? oneway reads the toolkit as tau2 v0.2 and later write it',
      };
    const tools = new Map(declared.map((t) => [t.decl.name as string, t]));
    files[`${domain}/shared/tools.yaml`] = toolsFile(domain, declared, s.command);
    const shared = ['../shared/tools.yaml'];
    for (const [group, tables] of Object.entries(worldTables(domain, source.db))) {
      files[`${domain}/shared/world-${group}.yaml`] = worldFile(domain, group, tables, source.dbSource);
      shared.push(`../shared/world-${group}.yaml`);
    }
    for (const t of declared)
      report.tools.push({
        domain,
        tool: t.decl.name as string,
        tau2_type: parseTools(source.toolsPy).find((p) => p.name === t.decl.name)?.type ?? 'read',
        class: t.entry.class,
        reason: t.entry.reason,
        review: t.review,
        language: languageOf(t.decl.name as string, t.rule, t.entry, t.write),
        not_rendered: t.rule?.unrendered ?? [],
      });
    const wanted = opts.only?.[domain];
    const tasks = source.tasks.filter((t) => wanted === undefined || wanted.has(String(t.id)));
    tasks.sort((a, b) => byTaskId(String(a.id), String(b.id)));
    for (const task of tasks) {
      const t = convertTask(domain, source, { ...task, id: String(task.id) }, tools, shared, s.command);
      Object.assign(files, t.files);
      report.tasks.push(t.report);
    }
    report.domains.push({ domain, tasks: tasks.length, db: source.dbSource });
  }
  files.NOTICE = noticeText(s);
  files['import-report.json'] = `${JSON.stringify(report, null, 2)}\n`;
  files['import-report.md'] = reportMarkdown(report);
  for (const [path, text] of Object.entries(files)) {
    const bytes = Buffer.byteLength(text);
    if (bytes >= MAX_FILE_BYTES)
      return {
        ok: false,
        message: `${path} would be ${bytes} bytes, over oneway's 2 MiB limit per file`,
        hint: 'the database is larger than tau2 ships; import fewer rows (a cut database) or report this as a bug',
      };
  }
  const sorted: Record<string, string> = {};
  for (const k of Object.keys(files).sort(cmp)) sorted[k] = files[k] as string;
  return { ok: true, value: { files: sorted, report } };
}
