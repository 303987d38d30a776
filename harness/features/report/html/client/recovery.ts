/** What the run left behind, newest first: the incident checklist `oneway recover` prints, per item. */
import { shellWord } from '../../../../util/shell-word.ts';
import type { RecoveryView, ReportData, RunView, TimelineView } from '../data.ts';
import { classBadge } from './badges.ts';
import { el, section } from './dom.ts';
import { callText } from './values.ts';

const ACTIONS: Record<string, string> = {
  compensate: 'undo (same authority)',
  compensate_with_approval: 'undo, with approval',
  respond: 'respond: cannot be undone',
  reconcile: 'reconcile first',
  none: 'nothing to do',
};

function item(i: RecoveryView): HTMLElement {
  const li = el(
    'li',
    { class: `rec a-${i.action}`, 'data-step': i.step },
    el(
      'div',
      { class: 'rec-head' },
      el('span', { class: 'rec-action', text: ACTIONS[i.action] ?? i.action }),
      ' ',
      classBadge(i.class),
      ' ',
      el('span', { class: 'step', text: `step ${i.step}` }),
      ' ',
      el('code', { class: 'tool', text: i.tool }),
    ),
  );
  if (i.happened.length)
    li.appendChild(
      el(
        'ul',
        { class: 'effects' },
        i.happened.map((h) => el('li', { text: h })),
      ),
    );
  if (i.compensated_at !== undefined)
    li.appendChild(el('p', { text: `Already compensated by the run at step ${i.compensated_at}.` }));
  if (i.compensates !== undefined)
    li.appendChild(el('p', { text: `This call was itself the compensation of step ${i.compensates}.` }));
  if (i.compensation && i.action !== 'none') {
    li.appendChild(
      el(
        'p',
        null,
        'Compensation: ',
        el('code', { text: callText(i.compensation.operation, i.compensation.args) }),
        i.compensation.needs_approval
          ? ` · needs approval${i.compensation.approver ? ` from ${i.compensation.approver}` : ''}`
          : ' · same authority, no approval',
      ),
    );
  }
  if (i.response) {
    li.appendChild(
      el(
        'dl',
        { class: 'response' },
        el('div', null, el('dt', { text: 'what' }), el('dd', { text: i.response.label })),
        el('div', null, el('dt', { text: 'notify' }), el('dd', { text: i.response.notify })),
        el('div', null, el('dt', { text: 'contain' }), el('dd', { text: i.response.contain })),
        el('div', null, el('dt', { text: 'disclose' }), el('dd', { text: i.response.disclose })),
      ),
    );
  }
  if (i.uncertain || i.uncertainty)
    li.appendChild(el('p', { class: 'warn-text', text: (i.uncertain ? 'Uncertain: ' : '') + (i.uncertainty || '') }));
  if (i.repeats !== undefined)
    li.appendChild(
      el('p', {
        class: 'warn-text',
        text: `Repeats step ${i.repeats}, which failed ambiguously: the effect may exist twice.`,
      }),
    );
  return li;
}

/** The command that prints a run's full checklist, as the user types it where the report was written. */
function recoverCommand(data: ReportData, run: RunView): string {
  const { command, dir } = data.recover;
  const record = dir === null ? `<out>/${run.record}` : shellWord(dir === '.' ? run.record : `${dir}/${run.record}`);
  return `${command} ${record} [--apply]`;
}

/** The recovery section, ending with the command that prints the full checklist. */
export function recovery(data: ReportData, run: RunView, t: TimelineView): HTMLElement {
  const s = section('Recovery: what the run left behind, newest first', 'drill-recovery');
  if (t.recovery.length === 0) {
    s.appendChild(
      el('p', { text: 'Nothing to recover: no call of this run changed the world outside read-only tools.' }),
    );
  } else {
    s.appendChild(el('ol', { class: 'recovery' }, t.recovery.map(item)));
  }
  s.appendChild(
    el(
      'p',
      { class: 'hint' },
      'The full checklist, and replaying the compensations in a sandbox: ',
      el('code', { class: 'recover-command', text: recoverCommand(data, run) }),
    ),
  );
  return s;
}
