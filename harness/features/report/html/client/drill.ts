/** The drill-down of one run: its trials, summary, findings, timeline, end and recovery. */
import type { ReportData, RunView } from '../data.ts';
import type { ScoreValue } from '../../../../engine/scoring/registry.ts';
import { chip, markBadge } from './badges.ts';
import { add, el, rows, section } from './dom.ts';
import { ending } from './ending.ts';
import { recovery } from './recovery.ts';
import { focusStep, timeline } from './timeline.ts';
import { ms } from './values.ts';

/** A score's value as the summary shows it: by class, milliseconds, or a count. */
function scoreText(value: ScoreValue, unit: string): string {
  if (value !== null && typeof value === 'object')
    return `${value.irreversible} irreversible, ${value.compensable} compensable, ${value.reversible} reversible`;
  return unit === 'ms' ? ms(Number(value)) : String(value);
}

function summary(data: ReportData, run: RunView): HTMLElement {
  const o = data.outcomes[run.outcome];
  const { dl, row } = rows('run-summary');
  row('outcome', [chip(data, run.outcome), ` ${o.label}: ${o.text}`]);
  row('end', run.end_reason);
  // Every registry score but the outcome's own two (completed, safe completed: the outcome says them).
  for (const s of data.scores) {
    const v = run.scores[s.name];
    if (v === undefined || typeof v === 'boolean') continue;
    row(s.label, scoreText(v, s.unit));
  }
  row('seed', String(run.seed));
  row('record', el('code', { text: run.record }));
  return dl;
}

function findings(data: ReportData, run: RunView): HTMLElement {
  const s = section('What went wrong', 'drill-findings');
  const list = el('ul', { class: 'finding-list' });
  for (const f of run.findings) {
    const go = el('button', { type: 'button', class: 'link', text: `step ${f.step}` });
    go.addEventListener('click', () => focusStep(f.step));
    list.appendChild(markBadge(data, f.kind, [' ', go, ' ', f.message.replace(/^step \d+: /, '')]));
  }
  s.appendChild(list);
  return s;
}

/**
 * Fills the dialog's title (`title`) and body (`body`) with `run`, one of `runs` (the trials of
 * its scenario and planner); `select(trial)` is called when the reader picks another trial.
 */
export function renderRun(
  data: ReportData,
  run: RunView,
  runs: readonly RunView[],
  scenarioTitle: string | undefined,
  target: { title: HTMLElement; body: HTMLElement },
  select: (trial: number) => void,
): void {
  const { title, body: out } = target;
  title.textContent = '';
  add(title, [
    chip(data, run.outcome),
    ' ',
    run.scenario,
    ' · ',
    run.planner,
    runs.length > 1 ? ` · trial ${run.trial}` : '',
  ]);
  out.textContent = '';
  if (scenarioTitle) out.appendChild(el('p', { class: 'stitle-full', text: scenarioTitle }));

  if (runs.length > 1) {
    const tabs = el('div', { class: 'trials', role: 'group', 'aria-label': 'trials' });
    for (const r of runs) {
      const b = el(
        'button',
        { type: 'button', class: 'trial-btn', 'aria-pressed': r === run ? 'true' : 'false', 'data-trial': r.trial },
        chip(data, r.outcome),
        ` trial ${r.trial}: ${data.outcomes[r.outcome].label}`,
      );
      b.addEventListener('click', () => select(r.trial));
      tabs.appendChild(b);
    }
    out.appendChild(tabs);
  }

  out.appendChild(summary(data, run));
  if (run.error)
    out.appendChild(el('p', { class: 'notice bad' }, el('strong', { text: `Error (${run.end_reason}): ` }), run.error));
  for (const n of run.notes)
    out.appendChild(el('p', { class: 'notice warn run-note' }, el('strong', { text: 'Note: ' }), n));
  if (run.findings.length) out.appendChild(findings(data, run));
  const t = run.timeline;
  if (t) {
    out.appendChild(timeline(data, run, t));
    out.appendChild(ending(t));
    out.appendChild(recovery(data, run, t));
  } else {
    out.appendChild(el('p', { class: 'empty', text: 'No timeline for this run (see the note above).' }));
  }
  out.scrollTop = 0;
}
