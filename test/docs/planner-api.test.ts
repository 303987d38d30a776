/**
 * docs/planner-api.md documents every field a planner reads: each field of `Observation` and of
 * `PlannerView` (harness/core/planner.ts) is named in its section of the page. A planner written
 * from a page that left out `tool`, `args` and `step` could not tell which call a result answered,
 * and looped silently to max_steps.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../..');
const SOURCE = readFileSync(join(REPO, 'harness/core/planner.ts'), 'utf8');
const PAGE = readFileSync(join(REPO, 'docs/planner-api.md'), 'utf8');

/** The top-level fields of an interface in the source (doc comments and nested object types skipped). */
function fieldsOf(name: string): string[] {
  const start = SOURCE.indexOf(`export interface ${name} {`);
  expect(start, `interface ${name} in harness/core/planner.ts`).toBeGreaterThanOrEqual(0);
  const fields: string[] = [];
  let depth = 0;
  for (const line of SOURCE.slice(start).split('\n').slice(1)) {
    if (depth === 0 && /^\}/.test(line)) break;
    const m = /^ {2}(\w+)\??:/.exec(line);
    if (depth === 0 && m) fields.push(m[1] as string);
    depth += (line.match(/[{(]/g) ?? []).length - (line.match(/[})]/g) ?? []).length;
  }
  return fields;
}

/** The text of the page's section whose heading contains `title`, up to the next heading. */
function section(title: string): string {
  const start = PAGE.split('\n').findIndex((l) => l.startsWith('#') && l.includes(title));
  expect(start, `a section "${title}" in docs/planner-api.md`).toBeGreaterThanOrEqual(0);
  const lines = PAGE.split('\n').slice(start + 1);
  const end = lines.findIndex((l) => l.startsWith('#'));
  return lines.slice(0, end === -1 ? undefined : end).join('\n');
}

describe('docs/planner-api.md', () => {
  it.each([
    ['Observation', '`Observation`'],
    ['PlannerView', '`PlannerView`'],
  ])('names every field of %s in its section', (type, heading) => {
    const fields = fieldsOf(type);
    expect(fields.length).toBeGreaterThan(5);
    const text = section(heading);
    expect(fields.filter((f) => !text.includes(`\`${f}\``))).toEqual([]);
  });
});
