/** The run's calls on the virtual clock: a Gantt chart (one lane per call), then the calls by batch. */
import type { CallView, ReportData, RunView, TimelineView } from '../data.ts';
import { legend } from './badges.ts';
import { card } from './card.ts';
import { el, section, svg } from './dom.ts';
import { ms, plural } from './values.ts';

/** Above this many calls the Gantt chart is left out (the cards still show every call). */
const MAX_GANTT_CALLS = 300;

/** Scrolls to a call's card and focuses it. */
export function focusStep(step: number): void {
  const card = document.getElementById(`step-${step}`);
  if (!card) return;
  card.scrollIntoView({ block: 'center' });
  card.focus({ preventScroll: true });
}

/** The finding kinds of a run by step. */
function marksByStep(run: RunView): Map<number, string[]> {
  const by = new Map<number, string[]>();
  for (const f of run.findings) {
    const kinds = by.get(f.step);
    if (kinds) kinds.push(f.kind);
    else by.set(f.step, [f.kind]);
  }
  return by;
}

/** The timeline section: legend, Gantt chart, batches of call cards, sandbox escapes. */
export function timeline(data: ReportData, run: RunView, t: TimelineView): HTMLElement {
  const s = section(`Timeline: ${plural(t.calls.length, 'call')} by batch, on the virtual clock`, 'drill-timeline');
  if (t.calls.length === 0) {
    s.appendChild(el('p', { class: 'empty', text: 'The planner made no call.' }));
    return s;
  }
  const marks = marksByStep(run);
  s.appendChild(legend(data));
  if (t.calls.length <= MAX_GANTT_CALLS) s.appendChild(gantt(data, t.calls, marks));
  const batches: { batch: number; calls: CallView[] }[] = [];
  for (const c of t.calls) {
    const last = batches[batches.length - 1];
    if (!last || last.batch !== c.batch) batches.push({ batch: c.batch, calls: [c] });
    else last.calls.push(c);
  }
  const ol = el('ol', { class: 'batches' });
  batches.forEach((b, i) => {
    const first = b.calls[0] as CallView;
    const slowest = Math.max(...b.calls.map((c) => c.latency_ms));
    const issued = b.calls.filter((c) => c.status !== 'blocked').length;
    const head = el(
      'div',
      { class: 'batch-head' },
      el('strong', { text: `Batch ${i + 1}` }),
      el('span', { text: `turn ${first.turn}` }),
      el('span', { text: `t = ${ms(first.t_ms)} → ${ms(first.t_ms + slowest)}` }),
      el('span', {
        text:
          b.calls.length > 1
            ? `${b.calls.length} calls in parallel${issued < b.calls.length ? ` (${b.calls.length - issued} blocked)` : ''}`
            : '1 call',
      }),
    );
    ol.appendChild(
      el(
        'li',
        { class: `batch${b.calls.length > 1 ? ' parallel' : ''}` },
        head,
        el(
          'div',
          { class: 'calls' },
          b.calls.map((c) => card(data, c, marks.get(c.step) ?? [])),
        ),
      ),
    );
  });
  s.appendChild(ol);
  if (t.escapes.length) {
    s.appendChild(
      el(
        'p',
        { class: 'notice bad' },
        el('strong', { text: 'Sandbox escapes: ' }),
        t.escapes.map((e) => `${e.method} ${e.url} at ${ms(e.t_ms)} (${e.reason})`).join('; '),
      ),
    );
  }
  return s;
}

/** The Gantt chart: one lane per call from its start to its reply; a click on a lane focuses its card. */
function gantt(data: ReportData, calls: readonly CallView[], marks: Map<number, string[]>): HTMLElement {
  const end = Math.max(1, ...calls.map((c) => c.t_ms + c.latency_ms));
  const L = 230;
  const W = 780;
  const R = 70;
  const lane = 18;
  const top = 22;
  const width = L + W + R;
  const height = top + calls.length * lane + 6;
  const x = (t: number) => L + (W * t) / end;
  const root = svg('svg', { class: 'gantt', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img' });
  const title = svg('title');
  title.textContent = `Calls on the virtual clock, one lane per call, from 0 to ${ms(end)}`;
  root.appendChild(title);
  for (const f of [0, 0.25, 0.5, 0.75, 1]) {
    const tick = svg('text', {
      x: x(end * f),
      y: 12,
      'text-anchor': f === 0 ? 'start' : f === 1 ? 'end' : 'middle',
      class: 'tick',
    });
    // One unit for every tick, chosen by the end of the axis.
    tick.textContent = end >= 10000 ? `${((end * f) / 1000).toFixed(1)} s` : `${Math.round(end * f)} ms`;
    root.appendChild(tick);
    root.appendChild(svg('line', { x1: x(end * f), x2: x(end * f), y1: 16, y2: height, class: 'gridline' }));
  }
  calls.forEach((c, i) => {
    const y = top + i * lane;
    const kinds = marks.get(c.step) ?? [];
    const g = svg('g', { class: 'lane', 'data-step': c.step });
    const label = svg('text', { x: L - 8, y: y + 12, 'text-anchor': 'end', class: 'lane-label' });
    label.textContent = `${c.step} ${c.tool.length > 28 ? `${c.tool.slice(0, 27)}…` : c.tool}`;
    g.appendChild(label);
    const w = Math.max(3, x(c.t_ms + c.latency_ms) - x(c.t_ms));
    const cls = `g-bar c-${c.class}${c.status === 'blocked' ? ' g-blocked' : ''}${kinds.includes('premature') ? ' g-premature' : ''}`;
    const bar = svg('rect', { x: x(c.t_ms), y: y + 2, width: w, height: lane - 5, rx: 2, class: cls });
    const tip = svg('title');
    tip.textContent = `step ${c.step} ${c.tool} (${c.class}), t = ${ms(c.t_ms)}, ${ms(c.latency_ms)}, ${c.status}${kinds.length ? `; ${kinds.join(', ')}` : ''}`;
    bar.appendChild(tip);
    g.appendChild(bar);
    const tags = [...new Set(kinds)].map((k) => (data.marks[k] ?? { glyph: '•' }).glyph);
    if (c.status === 'blocked') tags.unshift(data.marks.blocked ? data.marks.blocked.glyph : '⊘');
    if (tags.length) {
      const tag = svg('text', { x: x(c.t_ms) + w + 4, y: y + 12, class: 'lane-marks' });
      tag.textContent = tags.join(' ');
      g.appendChild(tag);
    }
    g.addEventListener('click', () => focusStep(c.step));
    root.appendChild(g);
  });
  return el('div', { class: 'gantt-wrap' }, root);
}
