/**
 * What `oneway audit` prints: the console table, JSON, Markdown (a pull-request comment, a step
 * summary) and a standalone HTML page. The evaluation's reporters read `Results` (planners,
 * scenarios, trials, completion): an audit has none of those, only sessions and tools, so these
 * are its own small writers; every journal-supplied text (tool names, session ids, paths) is
 * escaped for where it goes (terminalText, Markdown cells, escapeHtml).
 */
import Table from 'cli-table3';
import type { ChalkInstance } from 'chalk';
import { terminalText } from '../../util/terminal-text.ts';
import { escapeHtml } from '../report/html/escape.ts';
import type { Audit, AuditFigures, AuditGateFailure } from './audit.ts';

/** The reporters `--reporter` may name. */
export const AUDIT_REPORTERS = ['table', 'json', 'markdown', 'html'] as const;
export type AuditReporter = (typeof AUDIT_REPORTERS)[number];

/** The columns every table shows: head, its short form (the console's), and the figure's text. */
const COLUMNS: [string, string, (f: AuditFigures) => string][] = [
  ['calls', 'calls', (f) => String(f.calls)],
  ['premature irrev.', 'prem. irrev.', (f) => String(f.premature.irreversible)],
  ['premature comp./rev.', 'prem. c/r', (f) => `${f.premature.compensable}/${f.premature.reversible}`],
  ['parallel irrev.', 'parallel', (f) => String(f.parallel_irreversible)],
  ['unreconciled retries', 'retries', (f) => String(f.unreconciled_retries)],
  ['duplicates', 'dups', (f) => String(f.duplicate_effects)],
  ['uncertain', 'uncertain', (f) => String(f.uncertain)],
  ['would refuse/ask', 'would r/a', (f) => `${f.would_refuse}/${f.would_ask}`],
  ['blocked', 'blocked', (f) => String(f.blocked)],
];

/** What the console's short heads stand for. */
const LEGEND = [
  'prem.: premature calls (a precondition not known to hold), irreversible, and compensable/reversible',
  'parallel: irreversible calls made with another; retries: unreconciled retries; dups: duplicate effects',
  'would r/a: calls the policy would refuse / ask about (--observe); blocked: calls it refused',
].join('\n');

/** The two tables' rows: per session (journal, session), per tool (tool, class), and the total. */
function rows(audit: Audit): { sessions: string[][]; tools: string[][]; total: string[] } {
  // Journal text first made visible (no control character reaches a console, whatever the format).
  return {
    sessions: audit.sessions.map((s) => [
      terminalText(`${s.journal} ${s.session}${s.observe ? ' (observed)' : ''}`),
      ...COLUMNS.map(([, , f]) => f(s)),
    ]),
    tools: audit.tools.map((t) => [terminalText(`${t.tool} (${t.class})`), ...COLUMNS.map(([, , f]) => f(t))]),
    total: ['total', ...COLUMNS.map(([, , f]) => f(audit.total))],
  };
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
const counted = (audit: Audit) =>
  `${plural(audit.sessions.length, 'session')} in ${plural(audit.journals.length, 'journal')}`;

const HEADS = COLUMNS.map(([h]) => h);
const SHORT = COLUMNS.map(([, h]) => h);

/** The console tables (journal-supplied text made safe for a terminal). */
export function renderAuditTable(audit: Audit, c: ChalkInstance): string {
  const r = rows(audit);
  const table = (first: string, body: string[][], withTotal: boolean): string => {
    const t = new Table({ head: [first, ...SHORT], style: { head: c.level > 0 ? ['bold'] : [], border: [] } });
    for (const row of body) t.push(row);
    if (withTotal) t.push(r.total.map((x) => c.bold(x)));
    return t.toString();
  };
  return [counted(audit), table('session', r.sessions, true), table('tool', r.tools, false), c.dim(LEGEND)].join('\n');
}

export function renderAuditJson(audit: Audit, failures: readonly AuditGateFailure[]): string {
  return `${JSON.stringify({ ...audit, gates: { failed: failures } }, null, 2)}\n`;
}

const md = (s: string) => s.replace(/[\\|`*_<>[\]]/g, (ch) => `\\${ch}`).replace(/[\r\n]+/g, ' ');

export function renderAuditMarkdown(audit: Audit, failures: readonly AuditGateFailure[]): string {
  const r = rows(audit);
  const table = (first: string, body: string[][], total?: string[]) =>
    [
      `| ${[first, ...HEADS].join(' | ')} |`,
      `|${[first, ...HEADS].map(() => ' --- ').join('|')}|`,
      ...body.map((row) => `| ${row.map((x, i) => (i === 0 ? md(x) : x)).join(' | ')} |`),
      ...(total ? [`| ${total.map((x) => `**${x}**`).join(' | ')} |`] : []),
    ].join('\n');
  return [
    '## oneway audit',
    '',
    `${counted(audit)}.`,
    '',
    '### Per session',
    '',
    table('session', r.sessions, r.total),
    '',
    '### Per tool',
    '',
    table('tool', r.tools),
    ...(failures.length > 0
      ? ['', '### Gates failed', '', ...failures.map((f) => `- ${md(terminalText(f.message))}`)]
      : []),
    '',
  ].join('\n');
}

export function renderAuditHtml(audit: Audit, failures: readonly AuditGateFailure[]): string {
  const r = rows(audit);
  const table = (first: string, body: string[][], total?: string[]) =>
    `<table><thead><tr>${[first, ...HEADS].map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${body
      .map((row) => `<tr>${row.map((x, i) => `<td${i > 0 ? ' class="n"' : ''}>${escapeHtml(x)}</td>`).join('')}</tr>`)
      .join(
        '',
      )}${total ? `<tr class="total">${total.map((x, i) => `<td${i > 0 ? ' class="n"' : ''}>${escapeHtml(x)}</td>`).join('')}</tr>` : ''}</tbody></table>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>oneway audit</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}tr.total td{font-weight:bold}.failed{color:#b00}</style>
</head><body>
<h1>oneway audit</h1>
<p>${counted(audit)}: ${audit.journals.map((j) => `<code>${escapeHtml(terminalText(j))}</code>`).join(', ')}</p>
${failures.length > 0 ? `<ul class="failed">${failures.map((f) => `<li>${escapeHtml(terminalText(f.message))}</li>`).join('')}</ul>` : ''}
<h2>Per session</h2>
${table('session', r.sessions, r.total)}
<h2>Per tool</h2>
${table('tool', r.tools)}
</body></html>
`;
}
