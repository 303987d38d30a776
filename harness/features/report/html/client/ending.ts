/** How the run ended: its end reason, whether it completed, and the goal and forbidden facts. */
import type { TimelineView } from '../data.ts';
import { add, el, factList, rows, section } from './dom.ts';

/** The end-of-run section (a notice when the record has no run_end). */
export function ending(t: TimelineView): HTMLElement {
  const s = section('End of the run', 'drill-end');
  if (!t.end) {
    s.appendChild(
      el('p', { class: 'notice warn', text: 'The record has no run_end: the run stopped before it finished writing.' }),
    );
    return s;
  }
  const e = t.end;
  const { dl, row } = rows('run-summary');
  row('end reason', e.end_reason + (t.finish_reason ? `: “${t.finish_reason}”` : ''));
  row('completed', e.completed ? '✓ yes' : '✗ no');
  if (e.error) row('error', el('span', { class: 'bad', text: e.error }));
  s.appendChild(dl);
  const goal = el('div', { class: 'goal' });
  if (e.goal.held.length)
    add(goal, [el('h4', { class: 'good', text: '✓ goal facts held' }), factList(e.goal.held, 'held')]);
  if (e.goal.missing.length)
    add(goal, [el('h4', { class: 'bad', text: '✗ goal facts missing' }), factList(e.goal.missing, 'missing')]);
  if (e.forbidden_held.length)
    add(goal, [el('h4', { class: 'bad', text: '✗ forbidden facts held' }), factList(e.forbidden_held, 'missing')]);
  s.appendChild(goal);
  return s;
}
