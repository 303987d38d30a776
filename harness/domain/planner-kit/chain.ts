import { formatBelief, holdsIn, matchesFact, type Fact, UNKNOWN } from '../../core/facts/fact.ts';
import type { Call, ToolClass } from '../../core/planner.ts';
import type { ArgSources } from './args.ts';
import { confirmationFor, confirmationTool, unconsumedConfirmations } from './confirm.ts';
import { optionsFor, rankOptions, type Option, type OptionRank } from './options.ts';
import { toolFact } from './tool-facts.ts';
import { argsMentioned } from './unify.ts';
import { confirmationFact } from '../rules/declared.ts';

/** One call of a partial-order plan. */
export interface PlanNode {
  id: number;
  call: Call;
  class: ToolClass;
  kind: 'action' | 'approval' | 'confirmation';
  /** Preconditions rendered with the call's args (unknown values as `*`). */
  preconditions: string[];
  /** The preconditions not believed now. */
  missing: string[];
  /**
   * Required parameters not bound yet: each is mentioned by a precondition, so
   * it will be bound from the fact that establishing the precondition yields.
   */
  unbound: string[];
  /** Nodes that establish this node's missing preconditions (always lower ids). */
  dependsOn: number[];
  /** What the call establishes (result values as `*`). */
  establishes: string[];
  /** The fact this node was planned for. */
  for: string;
}

export interface PartialPlan {
  /** In dependency order: a node comes after every node it depends on. */
  nodes: PlanNode[];
  /** Goal facts not believed that no chain of tools reaches. */
  unreachable: string[];
  /** Why: facts (goals or preconditions) that no viable tool establishes, or that need a cycle or too deep a chain. */
  dead_ends: string[];
}

export interface ChainOptions {
  rank: OptionRank;
  /** How many precondition levels below a goal may be chained (default 6). */
  maxDepth?: number;
  /** Options a planner refuses outright (default: none). */
  accept?: (option: Option) => boolean;
}

/** A node can be issued now: nothing it depends on is pending and its args are bound. */
export function isReady(node: PlanNode): boolean {
  return node.dependsOn.length === 0 && node.unbound.length === 0;
}

/** An option can be planned when each unbound parameter will be bound by a precondition's fact. */
function plannable(o: Option, src: ArgSources): boolean {
  if (o.unbound.length === 0) return true;
  const mentioned = o.tool.preconditions.flatMap((p) => argsMentioned(toolFact(src.view, p)));
  return o.unbound.every((p) => mentioned.includes(p));
}

/**
 * Backward chaining (STRIPS-style) from the goal: for each goal fact not
 * believed, the best-ranked tool that establishes it, with its missing
 * preconditions as subgoals, recursively. An option whose subgoals cannot be
 * reached is abandoned for the next one. A fact already planned by a node is
 * shared (one approval serves every call it gates). A call of a tool that
 * requires confirmation, with no unconsumed yes to it in the history, gets a
 * node of its own before it: the confirmation tool asked about that exact call
 * (`{tool, args}`), depending on what the call depends on, so it is asked only
 * once the call is bound and its other preconditions are believed; one yes
 * serves one call. Deterministic for a view.
 *
 * @example
 * backwardChain([parse('email_sent(to=bob@acme.example)')], src, { rank: byClassThenMissing }).nodes.map((n) => n.call.tool)
 * // ['verify_recipient', 'request_approval', 'send_customer_email']
 */
export function backwardChain(goals: readonly Fact[], src: ArgSources, opts: ChainOptions): PartialPlan {
  const maxDepth = opts.maxDepth ?? 6;
  const nodes: PlanNode[] = [];
  const made: Fact[][] = [];
  let deadEnds: string[] = [];
  const licenses = unconsumedConfirmations(src.view);
  const asker = confirmationTool(src.view);

  const achieve = (fact: Fact, depth: number, stack: readonly string[]): number | 'held' | null => {
    if (holdsIn(fact, src.belief, UNKNOWN)) return 'held';
    const existing = made.findIndex((es) => es.some((e) => matchesFact(fact, e, UNKNOWN)));
    if (existing >= 0) return existing;
    const key = formatBelief(fact);
    if (depth > maxDepth || stack.includes(key)) {
      deadEnds.push(key);
      return null;
    }
    const options = optionsFor(fact, src).filter((o) => plannable(o, src) && (opts.accept?.(o) ?? true));
    if (options.length === 0) deadEnds.push(key);
    for (const o of rankOptions(options, opts.rank)) {
      const mark = nodes.length;
      // The yeses the nodes below take, given back if this option is abandoned.
      const kept = licenses.size > 0 ? new Map(licenses) : undefined;
      const deps: number[] = [];
      let ok = true;
      for (const pre of o.missing) {
        const r = achieve(pre, depth + 1, [...stack, key]);
        if (r === null) {
          ok = false;
          break;
        }
        if (r !== 'held' && !deps.includes(r)) deps.push(r);
      }
      if (ok) {
        const ask = confirmationFor(src.view, o.call, licenses);
        const confirmed = confirmationFact(o.call.tool, o.call.args);
        if (ask && asker) {
          // Not shared with any other node: a yes licenses this one call.
          nodes.push({
            id: nodes.length,
            call: ask,
            class: asker.class,
            kind: 'confirmation',
            preconditions: [],
            missing: [],
            unbound: o.unbound,
            dependsOn: [...deps],
            establishes: [confirmed],
            for: confirmed,
          });
          made.push([]);
          deps.push(nodes.length - 1);
        }
        const id = nodes.length;
        nodes.push({
          id,
          call: o.call,
          class: o.tool.class,
          kind: o.tool.kind,
          preconditions: [...o.preconditions.map(formatBelief), ...(o.tool.requires_confirmation ? [confirmed] : [])],
          missing: [...o.missing.map(formatBelief), ...(ask ? [confirmed] : [])],
          unbound: o.unbound,
          dependsOn: deps,
          establishes: o.establishes.map(formatBelief),
          for: key,
        });
        made.push(o.establishes);
        return id;
      }
      // Undo the nodes planned for the abandoned option.
      nodes.length = mark;
      made.length = mark;
      if (kept) for (const [k, n] of kept) licenses.set(k, n);
    }
    return null;
  };

  const unreachable: string[] = [];
  const allDeadEnds: string[] = [];
  for (const goal of goals) {
    deadEnds = [];
    if (achieve(goal, 0, []) === null) {
      unreachable.push(formatBelief(goal));
      for (const d of deadEnds) if (!allDeadEnds.includes(d)) allDeadEnds.push(d);
    }
  }
  return { nodes, unreachable, dead_ends: allDeadEnds };
}
