/** `npm run eval -- --list`: the scenario library at a glance. */
import Table from 'cli-table3';
import type { ChalkInstance } from 'chalk';
import { basename, dirname } from 'node:path';
import { effectiveClass } from '../../domain/rules/classes.ts';
import type { Scenario } from '../../core/scenario.ts';
import { terminalText } from '../../util/terminal-text.ts';
import { visibleWidth, wrapText } from '../../util/width.ts';
import { plural } from '../../util/plural.ts';

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

/**
 * The list as a table that fits `width` columns (default: unlimited): ids and domains always whole
 * (people copy ids into --scenario), traps and titles wrapped in what is left; when too little is
 * left, a list instead: each scenario's id, domain and tool mix on a line, its title and traps below.
 */
export function renderList(items: readonly ListedScenario[], c: ChalkInstance, width = Infinity): string {
  // Titles, tags and directory names are the scenario author's text: escaped for the console.
  const rows = items.map((i) => ({
    id: terminalText(i.id),
    domain: terminalText(i.domain),
    mix: `${i.classes.reversible}/${i.classes.compensable}/${c.red(String(i.classes.irreversible))}`,
    traps: terminalText(i.traps.join(', ')),
    title: terminalText(i.title),
  }));
  const idW = Math.max(2, ...rows.map((r) => visibleWidth(r.id))) + 2;
  const domainW = Math.max(6, ...rows.map((r) => visibleWidth(r.domain))) + 2;
  const mixW = 13;
  // What the fixed columns and the borders leave for traps and title (wrapped).
  const left = Number.isFinite(width) ? Math.min(width - (idW + domainW + mixW + 6), 110) : 34 + 48;
  // Too little left for readable traps and titles: one scenario per line, its title and traps below.
  if (left < 50) return `${renderLines(rows, c, width, idW, domainW)}\n${footer(items)}`;
  const trapsW = Math.min(Math.max(7, ...rows.map((r) => visibleWidth(r.traps))) + 2, Math.floor(left / 2));
  const colWidths = [idW, domainW, mixW, trapsW, left - trapsW];
  const t = new Table({
    head: ['id', 'domain', 'tools R/C/I', 'traps', 'title'],
    style: { head: c.level > 0 ? ['bold'] : [], border: [] },
    wordWrap: true,
    colWidths,
  });
  for (const r of rows) t.push([r.id, r.domain, r.mix, r.traps, r.title]);
  return `${t.toString()}\n${footer(items)}`;
}

function footer(items: readonly ListedScenario[]): string {
  const tags = new Set(items.flatMap((i) => i.tags));
  return `${plural(items.length, 'scenario')}, ${plural(tags.size, 'distinct tag')}. R/C/I: reversible / compensable / irreversible tools under each scenario's deployment.`;
}

/** Too narrow for a table: one line per scenario (id, domain, R/C/I), its title and traps indented below. */
function renderLines(
  rows: readonly { id: string; domain: string; mix: string; traps: string; title: string }[],
  c: ChalkInstance,
  width: number,
  idW: number,
  domainW: number,
): string {
  const pad = (s: string, n: number) => s + ' '.repeat(Math.max(1, n - visibleWidth(s)));
  const out = [c.bold(`${pad('id', idW)}${pad('domain', domainW)}R/C/I`)];
  const indent = (text: string) =>
    wrapText(text, Math.max(20, width - 4))
      .split('\n')
      .map((l) => `    ${l}`);
  for (const r of rows) {
    out.push(`${pad(r.id, idW)}${pad(r.domain, domainW)}${r.mix}`);
    out.push(...indent(r.title).map((l) => c.dim(l)));
    if (r.traps) out.push(...indent(`traps: ${r.traps}`).map((l) => c.dim(l)));
  }
  return out.join('\n');
}
