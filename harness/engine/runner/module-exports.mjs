// What a user's module must export to be a planner or a set of fuzz properties: one rule, read by the
// harness (runner/planners.ts, features/fuzz/property-module.ts) and by the sealed process that runs
// the module (runner/child-host.mjs), which is plain JavaScript (no TypeScript loader can run there).
// Types in module-exports.d.mts.

const isFactory = (x) => typeof x === 'object' && x !== null && typeof x.create === 'function';
const isPlanner = (x) => typeof x === 'object' && x !== null && typeof x.next === 'function';

export const PLANNER_HINT =
  'export default { name, next(view) { ... } } (a Planner) or { name, create(ctx) { return planner } } (a PlannerFactory); the planner API: docs/planner-api.md in the oneway package';

/**
 * The planner a module exports (`default`, `planner` or `factory`: a PlannerFactory or a Planner), as
 * a handle; undefined when it exports none.
 */
export function plannerExport(mod, fallbackName) {
  for (const candidate of [mod.default, mod.planner, mod.factory]) {
    const name = typeof candidate?.name === 'string' && candidate.name ? candidate.name : fallbackName;
    if (isFactory(candidate)) {
      return {
        name,
        create: (ctx) => candidate.create(ctx),
        ...(candidate.checkpoint ? { checkpoint: candidate.checkpoint } : {}),
        ...(candidate.cpuBound === true ? { cpuBound: true } : {}),
      };
    }
    if (isPlanner(candidate)) return { name, create: () => candidate };
  }
  return undefined;
}

export const PROPERTY_HINT =
  'export default { name: "my-property", check(events) { return true or a message } } (or a list of them); see docs/fuzzing.md';

const isProperty = (x) =>
  typeof x === 'object' && x !== null && typeof x.name === 'string' && x.name !== '' && typeof x.check === 'function';

/** The properties a module exports (`default`, one or a list, or `properties` / `property`); empty when none. */
export function propertyExports(mod) {
  for (const candidate of [mod.default, mod.properties, mod.property]) {
    const list = Array.isArray(candidate) ? candidate : candidate === undefined ? [] : [candidate];
    if (list.length > 0 && list.every(isProperty)) return list;
  }
  return [];
}

/**
 * What a property's `check` returned, as a verdict: `true` when it holds, else what went wrong.
 * `true` or nothing holds; `false` or a message fails.
 */
export function verdictOf(v) {
  if (v === true || v === undefined) return true;
  if (v === false) return 'check returned false';
  if (typeof v === 'string') return v === '' ? 'check returned an empty message' : v;
  let shown;
  try {
    shown = JSON.stringify(v)?.slice(0, 80);
  } catch {
    shown = typeof v;
  }
  return `check returned ${shown}, expected true, false or a message`;
}
