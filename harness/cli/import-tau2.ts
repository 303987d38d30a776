/**
 * `oneway import tau2 --from=DIR --domain=retail|airline|all [--tasks=LIST] --out=DIR [--airline-db=PATH]`:
 * a clone of tau2-bench as oneway scenarios (harness/features/convert/tau2/).
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../core/errors.ts';
import type { Tau2Domain } from '../features/convert/tau2/classes.ts';
import { convertTau2, DOMAINS } from '../features/convert/tau2/convert.ts';
import { readTau2, V1_AIRLINE_DATA } from '../features/convert/tau2/read.ts';
import { terminalText } from '../util/terminal-text.ts';
import type { Io } from './common.ts';

export const TAU2_HELP = `oneway import tau2: tau2-bench's retail and airline domains as oneway scenarios.

Usage: oneway import tau2 --from=DIR --domain=retail|airline|all --out=DIR [options]

  --from=DIR           a clone of https://github.com/sierra-research/tau2-bench
  --domain=NAME        retail, airline or all
  --out=DIR            where to write (a new or empty directory; --force to write into a full one)
  --tasks=LIST         only these task ids (comma-separated); with --domain=all, prefix the domain
                       (retail:105,airline:7); default: every task
  --airline-db=PATH    the airline database when the clone lacks data/tau2/domains/airline/db.json:
                       tau-bench v1's ${V1_AIRLINE_DATA} directory (the same data), or a db.json
  --force              write into a directory that is not empty (files already there are kept)
  -h, --help           this help

Writes, per domain: shared/tools.yaml (the tools, their classes with the reason, the policy's
preconditions), shared/world-*.yaml (the database, one file per group of tables), tasks/ (one
scenario per task, extending the shared files; its goal is the end state of the gold writes),
plans/ (gold as shipped, gold-confirmed, reference); and NOTICE (tau2's licence),
import-report.md and import-report.json (every task with a finding, and what could not be rendered).
A second import of the same clone writes the same bytes.

Exit status: 0 written; 2 a usage or input error.
Example: git clone https://github.com/sierra-research/tau2-bench
         git clone https://github.com/sierra-research/tau-bench
         oneway import tau2 --from=tau2-bench --domain=all --airline-db=tau-bench/${V1_AIRLINE_DATA} --out=tau2-scenarios`;

/** Parses --tasks for the chosen domains: a bare id applies to each, `domain:id` to one. */
function tasksOf(
  list: string | undefined,
  domains: readonly Tau2Domain[],
): Partial<Record<Tau2Domain, Set<string>>> | undefined {
  if (list === undefined) return undefined;
  const only: Partial<Record<Tau2Domain, Set<string>>> = {};
  for (const d of domains) only[d] = new Set();
  for (const raw of list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^(?:([a-z]+):)?(.+)$/.exec(raw) as RegExpExecArray;
    const domain = m[1];
    if (domain !== undefined && !domains.includes(domain as Tau2Domain))
      throw new UsageError(`--tasks names ${domain}:${m[2] as string}, but --domain does not import ${domain}`);
    for (const d of domain === undefined ? domains : [domain as Tau2Domain]) only[d]?.add(m[2] as string);
  }
  return only;
}

export interface Tau2Values {
  from?: string;
  domain?: string;
  tasks?: string;
  out?: string;
  force?: boolean;
  'airline-db'?: string;
}

export function importTau2(values: Tau2Values, io: Io): number {
  if (values.from === undefined)
    throw new UsageError(
      'give the tau2-bench clone with --from=DIR',
      'e.g. oneway import tau2 --from=tau2-bench --domain=retail --out=tau2-scenarios',
    );
  if (values.domain === undefined) throw new UsageError('give --domain=retail, airline or all');
  if (values.out === undefined) throw new UsageError('give the output directory with --out=DIR');
  const domains: readonly Tau2Domain[] =
    values.domain === 'all'
      ? DOMAINS
      : DOMAINS.includes(values.domain as Tau2Domain)
        ? [values.domain as Tau2Domain]
        : [];
  if (domains.length === 0)
    throw new UsageError(`unknown --domain "${values.domain}"`, 'domains: retail, airline, all');
  if (values['airline-db'] !== undefined && !domains.includes('airline'))
    throw new UsageError(
      '--airline-db is the airline database, but --domain does not import airline',
      'leave it out, or use --domain=airline or all',
    );
  const only = tasksOf(values.tasks, domains);
  const out = resolve(io.cwd, values.out);
  if (existsSync(out) && !statSync(out).isDirectory())
    throw new UsageError(`${values.out} is a file`, '--out is the directory the scenarios are written to');
  if (existsSync(out) && readdirSync(out).length > 0 && !values.force)
    throw new UsageError(`${values.out} is not empty`, 'pass --force to write into it, or choose another --out');
  const command = [
    'oneway import tau2 --from=<tau2-bench clone>',
    `--domain=${values.domain}`,
    ...(values.tasks !== undefined ? [`--tasks=${values.tasks}`] : []),
    ...(values['airline-db'] !== undefined ? ['--airline-db=<airline data>'] : []),
  ].join(' ');
  const sources = readTau2(values.from, domains, {
    cwd: io.cwd,
    command,
    ...(values['airline-db'] !== undefined ? { airlineDb: values['airline-db'] } : {}),
  });
  if (!sources.ok) throw new UsageError(sources.message, sources.hint);
  if (only)
    for (const s of sources.value.domains) {
      const ids = new Set(s.tasks.map((t) => String(t.id)));
      const missing = [...(only[s.domain] ?? [])].filter((id) => !ids.has(id));
      if (missing.length > 0)
        throw new UsageError(
          `${s.domain} has no task ${missing.join(', ')}`,
          `its tasks are ${[...ids].slice(0, 5).join(', ')}, ...`,
        );
    }
  const result = convertTau2(sources.value, only ? { only } : {});
  if (!result.ok) throw new UsageError(result.message, result.hint);
  for (const [path, text] of Object.entries(result.value.files)) {
    const p = join(out, ...path.split('/'));
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
  const r = result.value.report;
  for (const d of r.domains) {
    const tasks = r.tasks.filter((t) => t.domain === d.domain);
    const fails = tasks.filter((t) => t.findings.some((f) => f.kind === 'gold-write-fails-in-tau2')).length;
    const skips = tasks.filter((t) => t.findings.some((f) => f.kind === 'gold-skips-required-lookup')).length;
    const review = r.tools.filter((t) => t.domain === d.domain && t.review).map((t) => t.tool);
    io.stderr.write(
      `${d.domain}: ${tasks.length} scenario${tasks.length === 1 ? '' : 's'}; gold writes failing in tau2 in ${fails}, gold skipping a required lookup in ${skips}` +
        `${review.length > 0 ? `; ${review.length} tool(s) not in the class table, marked review: ${terminalText(review.join(', '))}` : ''}\n`,
    );
  }
  io.stderr.write(
    `wrote ${Object.keys(result.value.files).length} files to ${terminalText(values.out)}; findings in ${terminalText(join(values.out, 'import-report.md'))}\n`,
  );
  return 0;
}
