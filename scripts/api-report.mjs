#!/usr/bin/env node
/**
 * The API report: what each of the package's entry points exports (package.json "exports": `oneway`,
 * `oneway/fuzz`, `oneway/agents`), written to api/<entry>.api.md and compared with it, so that an
 * export nobody meant to publish fails the build (`npm run check:api`, part of `npm run check`, which
 * CI runs). `npm run api:update` rewrites the reports after a deliberate change; commit them with it.
 *
 * Each report lists the entry's runtime names (what `import * as m from 'oneway'` holds, read by
 * importing the entry's source), its type-only names, and its declarations: the entry's re-export
 * statements, which are what tsc emits as its .d.ts. An entry point names everything it exports
 * (`export { ... } from` only: an `export *` would let a module's new export through unseen), and the
 * root stays within its budget of runtime names whatever the report says.
 *
 * Run with tsx's loader (the entries are TypeScript): node --import tsx scripts/api-report.mjs [--update]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Most runtime names an entry point may export: the root is the surface every user meets first. */
const BUDGET = { oneway: 30, 'oneway/fuzz': 30, 'oneway/agents': 20 };

/** The entry points: import name, source file and report file, from package.json "exports". */
function entries(root) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return Object.entries(pkg.exports)
    .filter(([, target]) => typeof target === 'object' && target.types)
    .map(([key, target]) => {
      const name = key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`;
      // dist/harness/x.d.ts is compiled from harness/x.ts.
      const source = target.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts');
      return { name, source, report: `api/${name.replace('/', '-')}.api.md` };
    });
}

/** An entry's export statements, comments dropped: its names (type-only or not) and where each comes from. */
function exportsOf(root, source) {
  const text = readFileSync(join(root, source), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const statements = [];
  const names = [];
  const problems = [];
  const re = /export\s+(type\s+)?\{([^}]*)\}\s*from\s*'([^']+)'\s*;/g;
  let rest = text;
  for (let m; (m = re.exec(text));) {
    rest = rest.replace(m[0], '');
    const items = m[2]
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const from = join(dirname(source), m[3]);
    for (const item of items) {
      const typeOnly = Boolean(m[1]) || item.startsWith('type ');
      const parts = item.replace(/^type\s+/, '').split(/\s+as\s+/);
      names.push({ name: parts[parts.length - 1], typeOnly, from });
    }
    statements.push(`export ${m[1] ?? ''}{ ${items.join(', ')} } from '${m[3]}';`);
  }
  for (const line of rest.split('\n').filter((l) => /\bexport\b/.test(l)))
    problems.push(
      `${source}: "${line.trim()}": an entry point names what it exports (export { ... } from '...'), so that the report sees each name`,
    );
  return { statements, names, problems };
}

/** The runtime value's kind, as the report shows it. */
function kindOf(value) {
  if (typeof value === 'function')
    return /^class\b/.test(Function.prototype.toString.call(value)) ? 'class' : 'function';
  if (Array.isArray(value)) return 'array';
  return value === null ? 'null' : typeof value;
}

let loads = 0;

/** The report of one entry point, and the problems that fail the check whatever the report says. */
async function report(root, entry) {
  const { statements, names, problems } = exportsOf(root, entry.source);
  // A fresh instance each time (the query): a long-lived process (a test) may check an entry it has changed.
  const mod = await import(`${pathToFileURL(join(root, entry.source)).href}?api-report=${++loads}`);
  const runtime = Object.keys(mod).sort();
  const declared = new Map(names.map((n) => [n.name, n]));
  for (const name of runtime)
    if (!declared.has(name))
      problems.push(`${entry.source}: "${name}" is exported at run time but not named in the entry`);
  const types = names.filter((n) => !(n.name in mod)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const budget = BUDGET[entry.name];
  if (budget !== undefined && runtime.length > budget)
    problems.push(
      `${entry.name} exports ${runtime.length} runtime names, over its budget of ${budget} (scripts/api-report.mjs): ` +
        'keep internals in their modules, or raise the budget deliberately',
    );
  const lines = [
    `# The API of \`${entry.name}\``,
    '',
    `Generated from \`${entry.source}\` by \`npm run api:update\`; \`npm run check:api\` (in \`npm run check\`,`,
    'which CI runs) fails when the entry point exports anything else. Change it deliberately: edit the',
    'entry point, run `npm run api:update`, and commit this file with the change (docs/api.md says what',
    'is public).',
    '',
    `## Runtime names (${runtime.length})`,
    '',
    '| name | kind | from |',
    '|---|---|---|',
    ...runtime.map((name) => `| \`${name}\` | ${kindOf(mod[name])} | ${declared.get(name)?.from ?? '?'} |`),
    '',
    `## Types (${types.length})`,
    '',
    '| name | from |',
    '|---|---|',
    ...types.map((t) => `| \`${t.name}\` | ${t.from} |`),
    '',
    '## Declarations',
    '',
    `What \`${entry.source}\` exports, as its .d.ts declares it:`,
    '',
    '```ts',
    ...statements,
    '```',
    '',
  ];
  return { text: lines.join('\n'), problems };
}

/** The lines of `want` missing from `got` and the other way round, as a short diff. */
function diff(want, got) {
  const a = want.split('\n');
  const b = got.split('\n');
  return [
    ...a.filter((l) => !b.includes(l)).map((l) => `-  ${l}`),
    ...b.filter((l) => !a.includes(l)).map((l) => `+  ${l}`),
  ];
}

/**
 * Compares each entry point with its committed report (or, with `update`, rewrites the reports).
 * Returns whether all is well, and what to tell the user: each problem and each difference, with
 * what to do about it.
 */
export async function checkApi(root, { update = false } = {}) {
  const messages = [];
  let ok = true;
  for (const entry of entries(root)) {
    const { text, problems } = await report(root, entry);
    for (const p of problems) messages.push(`check:api: ${p}`);
    if (problems.length) ok = false;
    const file = join(root, entry.report);
    if (update) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      messages.push(`api:update: wrote ${relative(root, file)}`);
      continue;
    }
    const committed = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (committed === text) continue;
    ok = false;
    messages.push(
      committed === undefined
        ? `check:api: ${entry.report} is missing: run npm run api:update and commit it`
        : `check:api: ${entry.name} no longer exports what ${entry.report} says (- in the report, + now):\n` +
            diff(committed, text).join('\n') +
            `\n  If the change is meant: npm run api:update, and commit ${entry.report} with it (and say so in docs/api.md).` +
            `\n  If not: take the export out of ${entry.source}.`,
    );
  }
  if (ok && !update) messages.push(`check:api: ok (${entries(root).length} entry points)`);
  return { ok, messages };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const { ok, messages } = await checkApi(root, { update: process.argv.includes('--update') });
  for (const m of messages) (ok ? console.log : console.error)(m);
  if (!ok) process.exit(1);
}
