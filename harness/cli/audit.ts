/**
 * `oneway audit JOURNAL|DIR...`: real sessions scored with the evaluation's behaviour scores (see
 * features/audit/audit.ts). Exit status: 0 the journals were audited and every gate held; 1 a
 * `--fail-on` gate failed; 2 a usage error, or a journal that cannot be read.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '../core/errors.ts';
import { parseGate } from '../engine/gates/fail-on.ts';
import { formatRecordIssue } from '../engine/record/reader.ts';
import { readRecords } from '../engine/record/journals.ts';
import { AUDIT_METRICS, auditGates, auditRecords } from '../features/audit/audit.ts';
import {
  AUDIT_REPORTERS,
  renderAuditHtml,
  renderAuditJson,
  renderAuditMarkdown,
  renderAuditTable,
  type AuditReporter,
} from '../features/audit/render.ts';
import { suggest } from '../util/did-you-mean.ts';
import { terminalText } from '../util/terminal-text.ts';
import { commandFailed, paints, parseCli, processIo, runIfEntry, type Io } from './common.ts';
import { printHelp } from './help.ts';

const HELP = `oneway audit: score real sessions with the evaluation's behaviour scores.

Usage: oneway audit JOURNAL|DIR... [options]

  JOURNAL|DIR                journals oneway guard wrote (--observe or enforcing), or any run record;
                             a directory: every .jsonl file under it
  --reporter=NAME[,NAME...]  table (default), json, markdown, html
  --out=DIR                  write audit.json, audit.md and audit.html there for the reporters named
                             (the table still prints); without it, each reporter prints to stdout
  --fail-on=EXPR             a gate over the figures, e.g. 'premature_irreversible>0' or
                             'write_file:would_refuse>=5' (a TOOL: prefix: that tool's figures);
                             repeatable; a failed gate exits 1
  -h, --help                 this help

Each journal is read session by session (one per MCP client session of the guard) and each session
is scored by the rules an evaluation's run is scored by: premature calls by class (a precondition
not known to hold), parallel irreversible calls (made together with another call), unreconciled
retries (an irreversible call repeated after an ambiguous failure no reconciling call answered),
duplicate effects; uncertain calls are recover's (an ambiguous failure or a lost intent nobody
settled). From a guard run with --observe, what the policy would have refused or asked about; from
an enforcing guard, what it blocked. Figures per session, per tool, and in total.

Metrics for --fail-on: ${AUDIT_METRICS.join(', ')}.
Exit status: 0 audited and every gate held; 1 a gate failed; 2 a usage error or an unreadable journal.
Example: oneway audit journals/ --fail-on='premature_irreversible>0' --reporter=table,html --out=audit/`;

export const OPTIONS = {
  reporter: { type: 'string' },
  out: { type: 'string' },
  'fail-on': { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

const FILES: Record<Exclude<AuditReporter, 'table'>, string> = {
  json: 'audit.json',
  markdown: 'audit.md',
  html: 'audit.html',
};

function reportersOf(raw: string | undefined): AuditReporter[] {
  const names = (raw ?? 'table')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const n of names)
    if (!(AUDIT_REPORTERS as readonly string[]).includes(n)) {
      const s = suggest(n, AUDIT_REPORTERS);
      throw new UsageError(
        `unknown reporter "${terminalText(n)}"`,
        `${s ? `did you mean ${s}? ` : ''}reporters: ${AUDIT_REPORTERS.join(', ')}`,
      );
    }
  return [...new Set(names)] as AuditReporter[];
}

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const { c, cerr } = paints(io);
  try {
    const { values, positionals } = parseCli(argv, OPTIONS, true);
    if (values.help) {
      printHelp(io, HELP);
      return 0;
    }
    if (positionals.length === 0)
      throw new UsageError(
        'give the journals to audit',
        'e.g. oneway audit oneway-journal.jsonl, or the directory the journals are in',
      );
    const reporters = reportersOf(values.reporter);
    const gates = (values['fail-on'] ?? []).map((g) =>
      parseGate(g, { metrics: AUDIT_METRICS, example: 'premature_irreversible>0 or write_file:would_refuse>=5' }),
    );
    const { records, issues } = readRecords(positionals, io.cwd);
    for (const i of issues)
      io.stderr.write(
        `${i.severity === 'error' ? cerr.red(formatRecordIssue(i)) : cerr.yellow(formatRecordIssue(i))}\n`,
      );
    const unreadable = issues.some((i) => i.severity === 'error');
    if (records.length === 0) {
      io.stderr.write(cerr.red('oneway audit: no journal to audit\n'));
      return 2;
    }
    const audit = auditRecords(records);
    const failures = auditGates(audit, gates);
    const text: Record<AuditReporter, () => string> = {
      table: () => `${renderAuditTable(audit, c)}\n`,
      json: () => renderAuditJson(audit, failures),
      markdown: () => renderAuditMarkdown(audit, failures),
      html: () => renderAuditHtml(audit, failures),
    };
    if (values.out !== undefined) {
      const dir = resolve(io.cwd, values.out);
      mkdirSync(dir, { recursive: true });
      for (const r of reporters) {
        if (r === 'table') io.stdout.write(text.table());
        else {
          const path = join(dir, FILES[r]);
          writeFileSync(path, text[r]());
          io.stderr.write(`oneway audit: wrote ${path}\n`);
        }
      }
    } else for (const r of reporters) io.stdout.write(text[r]());
    for (const f of failures) io.stderr.write(`${cerr.red(terminalText(f.message))}\n`);
    if (unreadable) return 2;
    return failures.length > 0 ? 1 : 0;
  } catch (e) {
    return commandFailed(e, io, 'oneway audit');
  }
}

await runIfEntry(import.meta.url, (argv: string[]) => main(argv));
