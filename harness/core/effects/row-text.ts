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
