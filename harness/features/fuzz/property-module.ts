/**
 * Properties by name: the built-ins, or a user's module given as a path
 * (`--property=./my-prop.ts`). A user property is a function over the run
 * record:
 *
 * ```ts
 * import type { RecordProperty } from 'oneway';
 * export default {
 *   name: 'no-email-before-invoice',
 *   check(events) {
 *     // true (or nothing) when it holds; a message (or false) when it does not
 *   },
 * } satisfies RecordProperty;
 * ```
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../../core/errors.ts';
import { suggest } from '../../util/did-you-mean.ts';
import { importUserModule, looksLikeModulePath } from '../../engine/io/ts-loader.ts';
import type { RecordEvent } from '../../core/record.ts';
import { BUILTIN_PROPERTIES, type FuzzProperty, type PropertyContext, type Verdict } from './properties.ts';
import { OWNERS, type Owner } from './fault.ts';

/** A property over one run's record; the context also offers the scenario and `rerun`. */
export interface RecordProperty {
  name: string;
  description?: string;
  /**
   * Who is at fault when it fails: `planner` (the default: what a planner must never do), `scenario`
   * (it checks the scenario's declarations), `oneway` (it checks oneway itself), or `caller` (whatever
   * made the calls: the planner under --planner, else oneway).
   */
  owner?: Owner;
  check(
    events: readonly RecordEvent[],
    ctx: PropertyContext,
  ): boolean | string | void | Promise<boolean | string | void>;
}

function verdictOf(v: unknown): Verdict {
  if (v === true || v === undefined) return true;
  if (v === false) return 'check returned false';
  if (typeof v === 'string') return v === '' ? 'check returned an empty message' : v;
  return `check returned ${JSON.stringify(v)?.slice(0, 80)}, expected true, false or a message`;
}

/**
 * Turns a record property into a fuzz property; a check that throws fails with the error's message.
 *
 * @example
 * const p = fromRecordProperty({ name: 'few-steps', check: (events) => events.filter((e) => e.type === 'call').length <= 5 || 'more than 5 calls' });
 */
export function fromRecordProperty(p: RecordProperty): FuzzProperty {
  return {
    name: p.name,
    description: p.description ?? '(user property)',
    ...(p.owner !== undefined ? { owner: p.owner } : {}),
    async check(ctx) {
      try {
        return verdictOf(await p.check(ctx.run.events, ctx));
      } catch (e) {
        return `check threw: ${e instanceof Error ? e.message : String(e)}`;
      }
    },
  };
}

const isProperty = (x: unknown): x is RecordProperty =>
  typeof x === 'object' &&
  x !== null &&
  typeof (x as RecordProperty).name === 'string' &&
  (x as RecordProperty).name !== '' &&
  typeof (x as RecordProperty).check === 'function';

/** Loads the properties a module exports: `default` (one or a list), or `property` / `properties`. */
export async function loadPropertyModule(spec: string, cwd: string): Promise<FuzzProperty[]> {
  const file = resolve(cwd, spec);
  if (!existsSync(file)) throw new UsageError(`property module not found: ${spec}`, `looked at ${file}`);
  const mod = await importUserModule(file, { what: `property module ${spec}` });
  for (const candidate of [mod.default, mod.properties, mod.property]) {
    const list = Array.isArray(candidate) ? candidate : candidate === undefined ? [] : [candidate];
    if (list.length > 0 && list.every(isProperty)) {
      for (const p of list) {
        if (p.owner !== undefined && !OWNERS.includes(p.owner))
          throw new UsageError(
            `property "${p.name}" in ${spec} has owner ${JSON.stringify(p.owner)}, which oneway cannot blame`,
            `owner is one of ${OWNERS.join(', ')} (who is at fault when it fails), or left out for planner`,
          );
      }
      return list.map((p) => ({ ...fromRecordProperty(p), source: spec }));
    }
  }
  throw new UsageError(
    `${spec} does not export a property`,
    'export default { name: "my-property", check(events) { return true or a message } } (or a list of them); see docs/fuzzing.md',
  );
}

/**
 * The properties named on the command line, built-in names and module paths mixed.
 *
 * @example
 * await resolveProperties(['scoring-oracle', './props/no-email.ts'], process.cwd())
 */
export async function resolveProperties(specs: readonly string[], cwd: string): Promise<FuzzProperty[]> {
  const out: FuzzProperty[] = [];
  for (const spec of specs) {
    if (looksLikeModulePath(spec)) {
      out.push(...(await loadPropertyModule(spec, cwd)));
      continue;
    }
    const p = BUILTIN_PROPERTIES.find((b) => b.name === spec);
    if (!p) {
      const names = BUILTIN_PROPERTIES.map((b) => b.name);
      const s = suggest(spec, names);
      throw new UsageError(
        `unknown property "${spec}"`,
        `${s ? `did you mean "${s}"? ` : ''}built-in properties: ${names.join(', ')}; or give a path to a module`,
      );
    }
    out.push(p);
  }
  const names = out.map((p) => p.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new UsageError(`property "${dup}" is given twice`);
  return out;
}
