/** `npm run eval -- --list`: the scenario library at a glance. */
import Table from 'cli-table3';
import type { ChalkInstance } from 'chalk';
import { basename, dirname } from 'node:path';
import { effectiveClass } from '../loader/classes.ts';
import type { Scenario } from '../schema/scenario.ts';
import { terminalText } from '../util/terminal-text.ts';

export interface ListedScenario {
  id: string;
  domain: string;
  classes: { reversible: number; compensable: number; irreversible: number };
  tags: string[];
  traps: string[];
  title: string;
}

export function describeScenario(s: Scenario, file: string): ListedScenario {
  const classes = { reversible: 0, compensable: 0, irreversible: 0 };
  for (const t of s.tools) classes[effectiveClass(t, s.deployment)]++;
  const domain = basename(dirname(file));
  return { id: s.id, domain, classes, tags: s.tags, traps: s.tags.filter((t) => t !== domain), title: s.title };
}

export function renderList(items: readonly ListedScenario[], c: ChalkInstance): string {
  const t = new Table({ head: ['id', 'domain', 'tools R/C/I', 'traps', 'title'], style: { head: c.level > 0 ? ['bold'] : [], border: [] }, wordWrap: true, colWidths: [36, 18, 13, 34, 48] });
  for (const i of items) {
    const mix = `${i.classes.reversible}/${i.classes.compensable}/${c.red(String(i.classes.irreversible))}`;
    // Titles, tags and directory names are the scenario author's text: escaped for the console.
    t.push([terminalText(i.id), terminalText(i.domain), mix, terminalText(i.traps.join(', ')), terminalText(i.title)]);
  }
  const tags = new Set(items.flatMap((i) => i.tags));
  return `${t.toString()}\n${items.length} scenarios, ${tags.size} distinct tags. R/C/I: reversible / compensable / irreversible tools under each scenario's deployment.`;
}
