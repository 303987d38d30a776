/**
 * The layers of harness/, bottom to top, and what each may import (npm run check:layers; CI runs it).
 * A layer imports its own and lower layers only; nothing imports a cycle, type-only imports included.
 *
 *   util      helpers with no domain knowledge
 *   core      the contracts and the scenario language: scenario schema, record events, planner API,
 *             errors; facts, templates, the effect kinds and the World they act on
 *   domain    the rules of the problem: reconcile/retry/duplicate/argument/class rules, the planner kit
 *   engine    loading, the sandbox, the run loop, scoring, the guard, gates, records and results
 *   features  what is built on the engine: the run request, the evaluation pipeline, reports, recovery, fuzzing, lint, LLM, MCP, the guard proxy, import/export, bench
 *
 * CONTRIBUTING.md draws the same layers, with what lives where.
 *   entry     the CLI, and the package's entry points (index.ts, api.ts, agents.ts)
 *
 * planners/ (the bundled planners) see only what a planner author sees: core, domain, util (and the LLM planner).
 */
const layer = {
  util: '^harness/util/',
  core: '^harness/(core|schema)/',
  domain: '^harness/domain/',
  engine: '^harness/engine/',
  features: '^harness/features/',
  entry: '^harness/(cli/|index\\.ts$|api\\.ts$|agents\\.ts$)',
};
const below = (...names) => names.map((n) => layer[n]);

/** A rule: files in `from` may import nothing in harness/ outside `allowed`. */
const only = (name, allowed) => ({
  name: `${name}-imports-only-${allowed.join('-') || 'itself'}`,
  severity: 'error',
  comment: `${name} may import only ${[name, ...allowed].join(', ')} (see the layer list at the top of this file)`,
  from: { path: layer[name] },
  to: { path: '^harness/', pathNot: [layer[name], ...below(...allowed)] },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'a cycle (type-only imports included) makes layers meaningless: move the shared type down',
      from: { path: '^(harness|planners)/' },
      to: { circular: true },
    },
    only('util', []),
    only('core', ['util']),
    only('domain', ['util', 'core']),
    only('engine', ['util', 'core', 'domain']),
    only('features', ['util', 'core', 'domain', 'engine']),
    {
      name: 'recover-does-not-import-report',
      severity: 'error',
      comment:
        "the HTML report shows recovery's checklist (report imports recover): what both need (durations, console widths) lives in util/",
      from: { path: '^harness/features/recover/' },
      to: { path: '^harness/features/report/' },
    },
    {
      name: 'harness-does-not-import-bundled-planners',
      severity: 'error',
      comment:
        'bundled planners are loaded by name at run time (engine/runner/planners.ts); an import ties the engine to one of them',
      from: { path: '^harness/' },
      to: { path: '^planners/' },
    },
    {
      name: 'planners-see-the-planner-api-only',
      severity: 'error',
      comment: 'a planner decides from its view; it never reaches the sandbox, the runner or the world',
      from: { path: '^planners/' },
      to: { path: '^harness/', pathNot: [layer.util, layer.core, layer.domain, '^harness/features/llm/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    // TypeScript 7 has no JS API, so dependency-cruiser parses with swc; type-only imports count.
    parser: 'swc',
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.mjs', '.js', '.cjs', '.cts'] },
  },
};
