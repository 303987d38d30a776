/** How the drill-down writes values: JSON (clipped ones with their length), calls, durations, counts. */
import type { Clipped } from '../data.ts';
import { el } from './dom.ts';

/** Whether a value was cut for the page (data.ts `clip`). */
export function isClipped(v: unknown): v is Clipped {
  return (
    v !== null &&
    typeof v === 'object' &&
    (v as { clipped?: unknown }).clipped === true &&
    typeof (v as { preview?: unknown }).preview === 'string'
  );
}

/** A value as JSON; a clipped one as its preview and its length. */
export function json(v: unknown, pretty = false): string {
  if (isClipped(v)) return `${v.preview}… [${v.chars} characters; the whole value is in the record]`;
  if (v === undefined) return '—';
  return JSON.stringify(v, null, pretty ? 2 : 0);
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !isClipped(v);
}

/** key=value, value as JSON: exact (a string stays quoted) and on one line. */
function pairs(obj: unknown): string {
  if (!isPlain(obj)) return json(obj);
  return Object.keys(obj)
    .map((k) => `${k}=${JSON.stringify(obj[k])}`)
    .join(', ');
}

/** A call as one line: `op(key="value", ...)`. */
export function callText(op: string, args: unknown): string {
  return `${op}(${pairs(args)})`;
}

/** An object as a small two-column table (one row per key); anything else as JSON. */
export function valueView(v: unknown): HTMLElement {
  if (!isPlain(v) || Object.keys(v).length === 0) return el('pre', { text: json(v, true) });
  return el(
    'table',
    { class: 'kv' },
    el(
      'tbody',
      null,
      Object.keys(v).map((k) => {
        const x = v[k];
        // A nested value gets the full width, pretty-printed, under its key.
        if (x !== null && typeof x === 'object' && JSON.stringify(x).length > 40) {
          return [
            el('tr', null, el('th', { scope: 'row', colspan: '2', text: k })),
            el(
              'tr',
              null,
              el('td', { colspan: '2' }, el('pre', { class: 'nested', text: JSON.stringify(x, null, 2) })),
            ),
          ];
        }
        return el(
          'tr',
          null,
          el('th', { scope: 'row', text: k }),
          el('td', null, el('code', { text: JSON.stringify(x) })),
        );
      }),
    ),
  );
}

/** Milliseconds of the virtual clock: `850 ms`, `12.5 s`. */
export function ms(x: number): string {
  return x >= 10000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`;
}

/** `1 call`, `2 calls`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
