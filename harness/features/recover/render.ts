/**
 * The incident checklist (and what `--apply` did) as text for a terminal,
 * markdown for a ticket, or JSON for tools.
 */
import type { ChalkInstance } from 'chalk';
import { ms } from '../../util/duration.ts';
import type { ApplyReport, CompensationOutcome, Remaining } from './apply.ts';
import { showRow, showValue } from '../../core/effects/row-text.ts';
import type { Checklist, ChecklistItem } from './checklist.ts';
import { trimRuns } from '../../util/trim.ts';
import { wrapLines } from '../../util/width.ts';

export const FORMATS = ['text', 'markdown', 'json'] as const;
export type Format = (typeof FORMATS)[number];

const ACTION_TEXT: Record<ChecklistItem['action'], string> = {
  compensate: 'compensate',
  compensate_with_approval: 'compensate once approved',
  respond: 'respond: no compensation exists',
  reconcile: 'reconcile: the call failed ambiguously',
  none: 'nothing to do',
};

/** `tool({"k": v, ...})` with the exact arguments. */
function callText(tool: string, args: Record<string, unknown>): string {
  return `${tool}(${JSON.stringify(args)})`;
}

function argsText(args: Record<string, unknown>): string {
  const e = Object.entries(args);
  return e.length ? e.map(([k, v]) => `${k}=${showValue(v)}`).join(', ') : '(no arguments)';
}

function when(i: ChecklistItem): string {
  return `step ${i.step} · batch ${i.batch} · turn ${i.turn} · t=${ms(i.t_ms)}`;
}

function runLine(c: Checklist): string {
  const r = c.run;
  if (r.journal)
    return `${r.scenario} · journal of oneway guard in front of ${r.journal.upstream} since ${r.journal.started_at} · ${r.calls} call${r.calls === 1 ? '' : 's'}`;
  const end =
    r.end_reason === null
      ? 'interrupted (no run_end)'
      : `ended: ${r.end_reason}, ${r.completed ? 'completed' : 'not completed'}`;
  return `${r.scenario} · planner ${r.planner} · trial ${r.trial} · seed ${r.seed} · ${r.calls} call${r.calls === 1 ? '' : 's'} · ${end}${r.guard ? ' · guarded' : ''}`;
}

/** The unreadable lines of the record, in words (empty when every line was read). */
function unreadableText(c: Checklist): string {
  const u = c.unreadable;
  if (u.length === 0) return '';
  return `${u.length} line${u.length === 1 ? '' : 's'} of the record could not be read (what ${u.length === 1 ? 'it' : 'they'} held is unknown: check the system it names)`;
}

/** What a person checks about one unreadable line. */
const unreadableLine = (l: Checklist['unreadable'][number]): string =>
  `line ${l.line} could not be read: ${l.reason}; if it was a call, find out whether it reached the server`;

function summaryLine(c: Checklist): string {
  const k = c.counts;
  const n = c.items.length - k.refused;
  const lost = unreadableText(c);
  const refused = k.refused ? `${k.refused} refused by the guard (never sent, nothing to do)` : '';
  if (n === 0 && (lost || refused)) return [refused, lost].filter(Boolean).join('; ');
  if (n === 0) return 'no effects to recover: the run changed nothing outside read-only calls';
  const parts = [
    k.compensate && `${k.compensate} to compensate`,
    k.compensate_with_approval && `${k.compensate_with_approval} to compensate with approval`,
    k.respond && `${k.respond} to respond to (no compensation)`,
    k.reconcile && `${k.reconcile} to reconcile`,
    k.none && `${k.none} already settled`,
  ].filter(Boolean);
  const open = c.run.journal
    ? `${k.open} open (applied irreversible or compensable, or uncertain, until compensated or settled)`
    : c.run.completed === true
      ? `${k.open} open (duplicate effect${k.open === 1 ? '' : 's'} of a completed run)`
      : `${k.open} open (left by a run that did not complete)`;
  return `${n} effect${n === 1 ? '' : 's'}, newest first: ${parts.join(', ')}${k.uncertain ? `; ${k.uncertain} uncertain` : ''}${k.disputed ? `; ${k.disputed} disputed (the tools file disagrees with the journal: never applied)` : ''}; ${open}${refused ? `; ${refused}` : ''}${lost ? `; ${lost}` : ''}`;
}

/**
 * The checklist as plain text (colour through `c`, a chalk instance at level 0 for none), each line
 * wrapped to `width` console columns (the CLI gives the terminal's; default: not wrapped).
 *
 * @example
 * io.stdout.write(renderText(checklist, undefined, makeChalk(false)));
 */
export function renderText(
  checklist: Checklist,
  report: ApplyReport | undefined,
  c: ChalkInstance,
  file?: string,
  width = Infinity,
): string {
  const out: string[] = [];
  out.push(c.bold(`Incident checklist: ${runLine(checklist)}`));
  if (file) out.push(c.dim(`record: ${file}`));
  out.push(summaryLine(checklist), '');
  for (const l of checklist.unreadable) out.push(`[ ] ${c.red(unreadableLine(l))}`, '');
  checklist.items.forEach((i, n) => {
    const cls = i.class.toUpperCase();
    const tag = i.class === 'irreversible' ? c.red(cls) : i.class === 'compensable' ? c.yellow(cls) : c.green(cls);
    const box = i.action === 'none' ? '[x]' : '[ ]';
    out.push(`${box} ${n + 1}. ${tag} ${c.bold(i.tool)}  ${c.dim(when(i))}`);
    const pad = '       ';
    out.push(`${pad}args: ${argsText(i.args)}`);
    for (const d of i.disputed ?? []) out.push(`${pad}${c.red(`DISPUTED: ${d}; never applied`)}`);
    if (i.uncertain)
      out.push(
        `${pad}${c.yellow('UNCERTAIN: may have happened: reconcile first')}${i.reconcile_with.length ? ` (check with ${i.reconcile_with.join(' or ')})` : ''}${i.uncertainty ? `\n${pad}  ${i.uncertainty}` : ''}`,
      );
    else if (i.uncertainty) out.push(`${pad}settled: ${i.uncertainty}`);
    if (i.repeats !== undefined)
      out.push(`${pad}${c.yellow(`repeats step ${i.repeats}, which failed ambiguously: the effect may exist twice`)}`);
    if (i.duplicate_of !== undefined)
      out.push(
        `${pad}${c.red(`duplicate of step ${i.duplicate_of}: the same effect applied twice; this is the one to reverse`)}`,
      );
    i.happened.forEach((h, k) => out.push(`${pad}${k === 0 ? 'happened: ' : '          '}${h}`));
    if (i.recipients.length && i.action === 'respond')
      out.push(`${pad}to whom:  ${i.recipients.map((r) => `${r.key}=${showValue(r.value)}`).join(', ')}`);
    if (i.premature.length) out.push(`${pad}premature: ${i.premature.join(', ')} did not hold when it was issued`);
    out.push(`${pad}${c.bold(actionText(i))}${actionDetail(i)}`);
    if (i.compensation && i.action !== 'none' && i.action !== 'respond') {
      out.push(`${pad}  ${callText(i.compensation.operation, i.compensation.args)}`);
      if (i.compensation.approver) out.push(`${pad}  ${approvalText(i)}`);
    }
    if (i.response) {
      out.push(`${pad}  notify:   ${i.response.notify}`);
      out.push(`${pad}  contain:  ${i.response.contain}`);
      out.push(`${pad}  disclose: ${i.response.disclose}`);
    }
    out.push('');
  });
  if (report) out.push(...applyText(report, c));
  // Wrapped to the console: an item's lines continue under its details, a detail's two columns further in.
  const hang = (line: string) => (line.startsWith('[') ? 7 : line.length - line.trimStart().length + 2);
  return `${trimRuns(wrapLines(out.join('\n'), width, hang), '\n', 'end')}\n`;
}

function actionText(i: ChecklistItem): string {
  if (i.response) return `respond: ${i.response.label}, no compensation exists`;
  // A compensable compensation is a new action: a human decides even when the record asks no formal approval.
  if (i.action === 'compensate_with_approval' && i.compensation && !i.compensation.requires_approval)
    return 'compensate: a new action with its own side effects, once its owner agrees';
  return ACTION_TEXT[i.action];
}

function approvalText(i: ChecklistItem): string {
  const who = i.compensation?.approver?.text ?? '';
  return i.compensation?.requires_approval
    ? `approval required (per the record); approver: ${who}`
    : `approval not required by the record; owner: ${who}`;
}

function actionDetail(i: ChecklistItem): string {
  if (i.refused !== undefined) return `: refused by the guard (${i.refused}); it never reached the server`;
  if (i.settled)
    return `: settled ${i.settled.applied ? 'applied' : 'not applied'} by ${i.settled.by} at ${i.settled.at}`;
  if (i.compensated_at !== undefined) return `: the run compensated it at step ${i.compensated_at}`;
  if (i.compensates !== undefined)
    return `: this call compensated step ${i.compensates}; undoing it would bring that effect back`;
  if (i.action === 'reconcile')
    return i.reconcile_with.length
      ? `: ask ${i.reconcile_with.join(' or ')} whether it happened before retrying`
      : ': confirm with the system it called whether it happened before retrying';
  return '';
}

const DISPOSITION_TEXT: Record<CompensationOutcome['disposition'], string> = {
  compensated: 'compensated',
  compensation_failed: 'compensation FAILED',
  unapproved: 'skipped: needs approval (--approve)',
  irreversible: 'no compensation: irreversible',
  already_compensated: 'already compensated in the run',
  is_compensation: 'was itself a compensation in the run',
  nothing_applied: 'nothing applied',
  intended: 'kept: the effect the task needed (--duplicates)',
};

/** What the world was brought back to, in words. */
const targetText = (r: ApplyReport, the = false): string =>
  r.target === 'intended'
    ? 'the intended state (each effect applied once)'
    : the
      ? 'the pre-run state'
      : 'its pre-run state';

function changeText(r: Remaining): string {
  if (r.where === 'fact') return `fact ${r.change === 'added' ? '+' : '-'} ${r.fact}`;
  if (r.change === 'changed') {
    const keys = [...new Set([...Object.keys(r.before), ...Object.keys(r.after)])].filter(
      (k) => JSON.stringify(r.before[k]) !== JSON.stringify(r.after[k]),
    );
    return `${r.table} ~ ${showRow(r.after, 2)}: ${keys.map((k) => `${k}: ${showValue(r.before[k])} → ${showValue(r.after[k])}`).join(', ')}`;
  }
  return `${r.table} ${r.change === 'added' ? '+' : '-'} ${showRow(r.row)}`;
}

function applyText(r: ApplyReport, c: ChalkInstance): string[] {
  const out: string[] = [];
  out.push(c.bold('Applied in a sandbox (--apply)'));
  out.push(
    `replay: ${r.replay.calls} call${r.replay.calls === 1 ? '' : 's'} in ${r.replay.batches} batch${r.replay.batches === 1 ? '' : 'es'} re-executed in a fresh sandbox; effects match the record`,
  );
  for (const n of r.notes) out.push(c.yellow(`note: ${n}`));
  for (const o of r.compensations) {
    const what = o.operation ? ` ${callText(o.operation, o.args ?? {})}` : '';
    const missing =
      o.missing && o.missing.length ? c.dim(` (issued although ${o.missing.join(', ')} did not hold)`) : '';
    const mark =
      o.disposition === 'compensated' ? c.green('✓') : o.disposition === 'compensation_failed' ? c.red('✗') : '-';
    out.push(
      `  ${mark} step ${o.step} ${o.tool}: ${DISPOSITION_TEXT[o.disposition]}${what}${o.disposition === 'compensation_failed' && o.error ? `: ${o.error}` : ''}${o.disposition === 'compensated' ? missing : ''}`,
    );
  }
  if (r.restored) {
    const tables = Object.keys(r.before.tables).length;
    out.push(
      c.green(
        `RESTORED: the world equals ${targetText(r)} (${tables} table${tables === 1 ? '' : 's'}, ${r.before.facts.length} fact${r.before.facts.length === 1 ? '' : 's'})`,
      ),
    );
  } else {
    const by = new Map<string, number>();
    for (const x of r.remaining) by.set(x.cause, (by.get(x.cause) ?? 0) + 1);
    const causes = [...by.entries()].map(([k, v]) => `${v} ${k.replace('_', ' ')}`).join(', ');
    out.push(
      c.red(
        `NOT RESTORED: ${r.remaining.length} difference${r.remaining.length === 1 ? '' : 's'} from ${targetText(r, true)} remain (${causes})`,
      ),
    );
    for (const x of r.remaining) out.push(`  ${changeText(x)}\n      ${c.dim(`${x.cause}: ${x.explanation}`)}`);
  }
  if (r.reordered.length) out.push(c.dim(`same rows in another order: ${r.reordered.join(', ')}`));
  if (r.observations.length)
    out.push(
      c.dim(`not compared (facts read-only calls established, what they verified): ${r.observations.join(', ')}`),
    );
  return out;
}

/**
 * The checklist as markdown: a task list for an incident ticket.
 *
 * @example
 * writeFileSync('incident.md', renderMarkdown(checklist, undefined));
 */
export function renderMarkdown(checklist: Checklist, report: ApplyReport | undefined, file?: string): string {
  const out: string[] = [];
  const r = checklist.run;
  out.push(`# Incident checklist: ${r.scenario}`, '');
  out.push(`${runLine(checklist)}${file ? `  \nRecord: \`${file}\`` : ''}`, '');
  out.push(`${summaryLine(checklist)}.`, '');
  for (const l of checklist.unreadable) out.push(`- [ ] **${unreadableLine(l)}**`);
  checklist.items.forEach((i) => {
    const box = i.action === 'none' ? '[x]' : '[ ]';
    out.push(`- ${box} **${i.tool}** (${i.class}), ${when(i)}: ${actionText(i)}${actionDetail(i)}`);
    out.push(`  - args: \`${JSON.stringify(i.args)}\``);
    for (const d of i.disputed ?? []) out.push(`  - **disputed**: ${d}; never applied`);
    if (i.uncertain)
      out.push(
        `  - **uncertain**: may have happened: reconcile first${i.uncertainty ? ` (${i.uncertainty})` : ''}${i.reconcile_with.length ? `; check with \`${i.reconcile_with.join('` or `')}\`` : ''}`,
      );
    if (i.repeats !== undefined)
      out.push(`  - repeats step ${i.repeats}, which failed ambiguously: the effect may exist twice`);
    if (i.duplicate_of !== undefined)
      out.push(
        `  - **duplicate of step ${i.duplicate_of}**: the same effect applied twice; this is the one to reverse`,
      );
    for (const h of i.happened) out.push(`  - happened: ${h}`);
    if (i.recipients.length && i.action === 'respond')
      out.push(`  - to whom: ${i.recipients.map((x) => `${x.key}=${showValue(x.value)}`).join(', ')}`);
    if (i.premature.length) out.push(`  - premature: \`${i.premature.join('`, `')}\` did not hold`);
    if (i.compensation && i.action !== 'none' && i.action !== 'respond') {
      out.push(`  - compensation: \`${callText(i.compensation.operation, i.compensation.args)}\``);
      if (i.compensation.approver) out.push(`  - ${approvalText(i)}`);
    }
    if (i.response) {
      out.push('  - response:');
      out.push(`    - [ ] notify: ${i.response.notify}`);
      out.push(`    - [ ] contain: ${i.response.contain}`);
      out.push(`    - [ ] disclose: ${i.response.disclose}`);
    }
  });
  if (report) {
    out.push('', '## Applied in a sandbox', '');
    out.push(
      `Replayed ${report.replay.calls} calls in ${report.replay.batches} batches; effects match the record.`,
      '',
    );
    for (const n of report.notes) out.push(`> note: ${n}`, '');
    for (const o of report.compensations)
      out.push(
        `- step ${o.step} \`${o.tool}\`: ${DISPOSITION_TEXT[o.disposition]}${o.operation ? ` \`${callText(o.operation, o.args ?? {})}\`` : ''}`,
      );
    out.push('');
    if (report.restored) out.push(`**Restored**: the world equals ${targetText(report)}.`);
    else {
      out.push(
        `**Not restored**: ${report.remaining.length} differences remain.`,
        '',
        '| difference | cause | why |',
        '|---|---|---|',
      );
      for (const x of report.remaining)
        out.push(`| ${changeText(x).replace(/\|/g, '\\|')} | ${x.cause} | ${x.explanation.replace(/\|/g, '\\|')} |`);
    }
  }
  return `${out.join('\n')}\n`;
}

/** The checklist (and apply report) as JSON. */
export function renderJson(
  checklist: Checklist,
  report: ApplyReport | undefined,
  warnings: readonly unknown[] = [],
): string {
  return `${JSON.stringify({ ...checklist, ...(report ? { apply: report } : {}), warnings }, null, 2)}\n`;
}
