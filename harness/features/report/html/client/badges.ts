/** The small labelled marks of the drill-down: outcome chips, tool-class badges, finding marks. */
import type { MarkView, Outcome, ReportData } from '../data.ts';
import { el, type Child } from './dom.ts';

/** The tool classes, each with a glyph so colour is never the only cue. */
const CLASSES: Record<string, { glyph: string; text: string }> = {
  reversible: { glyph: '↺', text: 'reversible' },
  compensable: { glyph: '⇄', text: 'compensable' },
  irreversible: { glyph: '⇥', text: 'irreversible' },
};

/** An outcome's chip (its glyph; the words are beside it). */
export function chip(data: ReportData, outcome: Outcome): HTMLElement {
  return el('span', { class: `chip o-${outcome}`, 'aria-hidden': 'true', text: data.outcomes[outcome].glyph });
}

/** A tool class as a badge: glyph and name. */
export function classBadge(cls: string): HTMLElement {
  const c = CLASSES[cls] ?? { glyph: '?', text: cls };
  return el('span', { class: `cls c-${cls}` }, el('span', { 'aria-hidden': 'true', text: `${c.glyph} ` }), c.text);
}

/** A mark's name with its glyph. */
function markName(m: MarkView): HTMLElement {
  return el('span', { class: 'mark-name' }, el('span', { 'aria-hidden': 'true', text: `${m.glyph} ` }), m.text);
}

/** A finding's mark as a list item (one per finding kind of the score registry, and `blocked`), with more after it. */
export function markBadge(data: ReportData, kind: string, extra?: Child): HTMLElement {
  const m = data.marks[kind] ?? { glyph: '•', text: kind, detail: '' };
  return el('li', { class: `mark m-${kind}` }, markName(m), extra || null);
}

/** The key to the timeline: the tool classes, then every mark. */
export function legend(data: ReportData): HTMLElement {
  return el(
    'ul',
    { class: 'legend-list compact' },
    Object.keys(CLASSES).map((k) => el('li', null, classBadge(k))),
    Object.entries(data.marks).map(([kind, m]) => el('li', { class: `mark m-${kind}` }, markName(m))),
  );
}
