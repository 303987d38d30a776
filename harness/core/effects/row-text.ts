/**
 * Rows and values in words, short enough for a checklist line: what effect
 * descriptions and recover's reports show of the data an effect touched.
 */
import type { Row } from '../world.ts';
import { stableJson } from '../../util/json.ts';

const KEY_FIELDS = ['id', 'key', 'name', 'message_id', 'request_id'];

/** The identifying field of a row: id, key, name, a *_id field, else the first field. */
export function rowKey(row: Row): string | undefined {
  for (const k of KEY_FIELDS) if (k in row) return k;
  return Object.keys(row).find((k) => k.endsWith('_id')) ?? Object.keys(row)[0];
}

export function rowLabel(row: Row): string {
  const k = rowKey(row);
  return k === undefined ? '{}' : `${k}=${showValue(row[k])}`;
}

export function showRow(row: Row, max = 6): string {
  const entries = Object.entries(row);
  const shown = entries.slice(0, max).map(([k, v]) => `${k}: ${showValue(v)}`);
  return `{${shown.join(', ')}${entries.length > max ? ', ...' : ''}}`;
}

/** The fields that differ between two versions of a row, `field: before → after`; empty when none does. */
export function fieldChanges(before: Row, after: Row): string {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const changed = keys.filter((k) => stableJson(before[k]) !== stableJson(after[k]));
  if (changed.length === 0) return '';
  return changed.map((k) => `${k}: ${showValue(before[k])} → ${showValue(after[k])}`).join(', ');
}

export function showValue(v: unknown): string {
  if (v === undefined) return '(none)';
  if (typeof v === 'string') return v.length > 80 ? `${v.slice(0, 77)}...` : v;
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** A row as `key=value` pairs, each value exact JSON (a string stays quoted), on one line. */
export function exactPairs(row: Row): string {
  return Object.keys(row)
    .map((k) => `${k}=${JSON.stringify(row[k])}`)
    .join(', ');
}

const exact = (v: unknown): string => (v === undefined ? '—' : JSON.stringify(v));

/** An updated row exactly: its identifying field, then only the fields that changed, `field: before → after`. */
export function exactChanges(was: Row, now: Row): string {
  const keys = Object.keys(was);
  const id = ['id', 'key', 'name'].find((k) => k in was) || keys.find((k) => /_id$/.test(k)) || keys[0];
  const changed = [...keys, ...Object.keys(now).filter((k) => !(k in was))].filter(
    (k) => JSON.stringify(was[k]) !== JSON.stringify(now[k]),
  );
  const label = id === undefined ? '' : `${id}=${JSON.stringify(was[id])} `;
  return (
    label +
    (changed.length ? changed.map((k) => `${k}: ${exact(was[k])} → ${exact(now[k])}`).join(', ') : '(unchanged)')
  );
}
