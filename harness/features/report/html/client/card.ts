/** A call's card in the timeline: class, status, marks, arguments, result, effects, compensation, checks. */
import type { CallView, Clipped, ReportData } from '../data.ts';
import { classBadge, markBadge } from './badges.ts';
import { add, el, factList, rows, type Child } from './dom.ts';
import { callText, isClipped, json, plural, valueView } from './values.ts';

function statusText(c: CallView): string {
  if (c.status === 'blocked') return 'blocked by the guard';
  if (c.status === 'fault')
    return `fault ${c.http_status === null ? '' : c.http_status}${c.ambiguous ? ', ambiguous' : ''}${c.applied ? ', effect applied' : ', no effect'}`;
  return `ok${c.http_status === null ? '' : ` ${c.http_status}`}`;
}

/** An effect arrives in words (its kind's module wrote them, harness/core/effects/), or clipped. */
function effectText(value: string | Clipped): string {
  return isClipped(value) ? json(value) : value;
}

/** What undoes the call, or why nothing needs to. */
function compensationOf(c: CallView): Child {
  if (c.compensation) {
    return el(
      'span',
      { class: 'comp' },
      el('code', { text: callText(c.compensation.operation, c.compensation.args) }),
      el('span', {
        class: c.compensation.needs_approval ? 'approval need' : 'approval',
        text: c.compensation.needs_approval ? ' · needs approval' : ' · same authority, no approval',
      }),
      c.compensation.scheduled ? ' · scheduled by the guard' : '',
    );
  }
  if (c.status === 'blocked') return 'none needed: never issued';
  if (c.class === 'irreversible')
    return el('span', {
      class: c.applied ? 'bad' : '',
      text: c.applied ? 'none: irreversible (see Recovery)' : 'none: irreversible, and the call had no effect',
    });
  return c.read_only ? 'none needed: read-only' : !c.applied ? 'none needed: the call had no effect' : 'none recorded';
}

/** The call's marks: the finding kinds at its step (`kinds`), and `blocked`. */
function marksOf(data: ReportData, c: CallView, kinds: readonly string[]): HTMLElement {
  const ul = el('ul', { class: 'marks' });
  for (const k of new Set(kinds)) {
    // Two marks say more from the call itself; the others say what their registry entry says.
    if (k === 'premature')
      ul.appendChild(markBadge(data, k, [': missing ', factList(c.preconditions.missing, 'missing')]));
    else if (k === 'parallel_irreversible')
      ul.appendChild(markBadge(data, k, `: issued alongside ${plural(c.batch_size - 1, 'other call')}`));
    else ul.appendChild(markBadge(data, k, data.marks[k] ? `: ${data.marks[k].detail}` : null));
  }
  if (c.status === 'blocked')
    ul.appendChild(markBadge(data, 'blocked', c.blocked_reason ? `: ${c.blocked_reason}` : ''));
  return ul;
}

/**
 * One call as an `article` (`#step-N`, focusable, `data-step` and `data-tool`), `kinds` the
 * finding kinds at its step.
 */
export function card(data: ReportData, c: CallView, kinds: readonly string[]): HTMLElement {
  const premature = kinds.includes('premature');
  const article = el('article', {
    class: `call c-${c.class}${premature ? ' is-premature' : ''}${c.status === 'blocked' ? ' is-blocked' : ''}`,
    id: `step-${c.step}`,
    'data-step': c.step,
    'data-tool': c.tool,
    tabindex: '-1',
    'aria-label': `step ${c.step}, ${c.tool}`,
  });
  article.appendChild(
    el(
      'header',
      null,
      classBadge(c.class),
      el('span', { class: 'step', text: `step ${c.step}` }),
      el('code', { class: 'tool', text: c.tool }),
      el('span', { class: `status s-${c.status}`, text: statusText(c) }),
    ),
  );
  const ul = marksOf(data, c, kinds);
  if (ul.childNodes.length) article.appendChild(ul);

  const { dl, row } = rows('call-detail');
  row('args', valueView(c.args));
  if (c.kind !== 'action' && c.approved !== undefined) row(c.kind, c.approved ? '✓ approved' : '✗ denied');
  if (c.reconciled) {
    // Every call it reported on (records before round 3 name only the most recent).
    const reported = c.reconciled.calls ?? [c.reconciled];
    row(
      'reconciles',
      reported.map((r) => `step ${r.step} ${r.tool}: applied = ${r.applied}`).join('; ') +
        (c.reply_lost ? ' (reply lost in a restart: reported nothing)' : ''),
    );
  }
  if (c.status === 'fault' || c.error)
    row('error', el('span', { class: 'bad', text: c.error || `HTTP ${c.http_status}` }));
  if (c.status !== 'blocked' && c.result !== null && c.result !== undefined) row('result', valueView(c.result));
  if (c.effects.length)
    row(
      'effects',
      el(
        'ul',
        { class: 'effects' },
        c.effects.map((e) => el('li', null, el('code', { text: effectText(e) }))),
      ),
    );
  row('compensation', compensationOf(c));
  const pre = c.preconditions;
  if (pre.held.length || pre.missing.length) {
    const d = el(
      'details',
      { class: 'pre' },
      el('summary', { text: `preconditions: ${pre.held.length} held, ${pre.missing.length} missing` }),
    );
    if (pre.held.length) add(d, [el('span', { class: 'good', text: '✓ held' }), factList(pre.held, 'held')]);
    if (pre.missing.length) add(d, [el('span', { class: 'bad', text: '✗ missing' }), factList(pre.missing, 'missing')]);
    if (c.establishes.length) add(d, [el('span', { text: 'establishes' }), factList(c.establishes, '')]);
    row('checks', d);
  }
  article.appendChild(dl);
  return article;
}
