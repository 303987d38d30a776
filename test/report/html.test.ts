import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Window } from 'happy-dom';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordsIn, renderHtml } from '../../harness/features/report/html.ts';
import { clip, outcomeOf, type ReportData } from '../../harness/features/report/html/data.ts';
import { scriptJson } from '../../harness/features/report/html/escape.ts';
import type { Results } from '../../harness/engine/results/types.ts';
import { embeddedData, evaluateWithHtml, type Evaluated } from './fixture.ts';

const SCENARIOS =
  '--scenario=invoice-and-notify,webhook-timeout-reconcile,refund-needs-authorisation,purge-inactive-accounts';

/** Parses without running any script (DOMParser documents never execute them). */
function parse(html: string) {
  const w = new Window();
  return new w.DOMParser().parseFromString(html, 'text/html');
}

let ev: Evaluated;
beforeAll(async () => {
  ev = await evaluateWithHtml(['--planner=eager,gated', SCENARIOS, '--trials=2']);
});

describe('--reporter=html', () => {
  it('writes one self-contained report.html: nothing fetched from anywhere', () => {
    const { html } = ev;
    expect(html.startsWith('<!doctype html>')).toBe(true);
    // No attribute that loads anything from a network (absolute or protocol-relative URL).
    expect(html).not.toMatch(/\b(?:src|href|srcset|action|poster|data|xlink:href)\s*=\s*["']?\s*(?:https?:)?\/\//i);
    expect(html).not.toMatch(/<(?:link|iframe|img|object|embed|base)\b/i);
    expect(html).not.toMatch(/<script\b[^>]*\ssrc\s*=/i);
    expect(html).not.toMatch(/@import|url\(\s*(?!['"]?#)/i);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none';`);
    // The data mentions https:// URLs (tool arguments), but only inside the JSON block.
    const doc = parse(html);
    for (const el of doc.querySelectorAll('[src], [href]')) {
      expect(`${el.getAttribute('src') ?? ''}${el.getAttribute('href') ?? ''}`).not.toMatch(/^\s*(?:https?:)?\/\//i);
    }
  });

  it('has the chart bars, a grid cell per scenario and planner, and the data of every run', () => {
    const doc = parse(ev.html);
    const planners = ev.results.config.planners;
    expect(doc.querySelectorAll('svg.chart rect.bar').length).toBe(planners.length * 2);
    for (const p of planners) {
      expect(doc.querySelector(`rect.bar[data-planner="${p}"][data-metric="safe"]`)).not.toBeNull();
      expect(doc.querySelector(`rect.bar[data-planner="${p}"][data-metric="premature"]`)).not.toBeNull();
    }
    expect(doc.querySelectorAll('table.grid tbody td.cell').length).toBe(ev.results.scenarios.length * planners.length);
    expect(doc.querySelectorAll('table.grid button.cell-btn').length).toBe(
      ev.results.scenarios.length * planners.length,
    );
    const data = embeddedData(ev.html) as ReportData;
    expect(data.runs).toHaveLength(ev.results.runs.length);
    expect(data.timelines).toBe('all');
    // Read, not recomputed: the outcome and findings are the results' own.
    for (const [i, r] of ev.results.runs.entries()) {
      expect(data.runs[i]?.outcome).toBe(outcomeOf(r));
      expect(data.runs[i]?.findings).toEqual(r.findings);
      expect(data.runs[i]?.timeline?.calls.length).toBe(r.steps + r.blocked);
    }
  });

  it('embeds each call with its class, preconditions, result and compensation', () => {
    const data = embeddedData(ev.html) as ReportData;
    const run = data.runs.find((r) => r.scenario === 'invoice-and-notify' && r.planner === 'eager');
    const create = run?.timeline?.calls.find((c) => c.tool === 'create_invoice');
    expect(create?.class).toBe('compensable');
    expect(create?.compensation?.operation).toBe('void_invoice');
    expect(create?.compensation?.needs_approval).toBe(true);
    const send = run?.timeline?.calls.find((c) => c.tool === 'send_invoice_email');
    expect(send?.class).toBe('irreversible');
    expect(send?.preconditions.missing.length).toBeGreaterThan(0);
    expect(run?.timeline?.end?.goal).toBeDefined();
    expect(run?.timeline?.recovery.some((i) => i.tool === 'send_invoice_email' && i.action === 'respond')).toBe(true);
  });

  it('escapes a scenario title and a planner name that try to end the script element', () => {
    const payload = '</script><script>alert(1)</script>';
    const planner = 'eager<!--x-->';
    const rename = (p: string) => (p === 'eager' ? planner : p);
    const results: Results = {
      ...ev.results,
      config: { ...ev.results.config, planners: ev.results.config.planners.map(rename) },
      scenarios: ev.results.scenarios.map((s, i) => (i === 0 ? { ...s, title: payload } : s)),
      runs: ev.results.runs.map((r) => ({ ...r, planner: rename(r.planner) })),
      summary: ev.results.summary.map((s) => ({ ...s, planner: rename(s.planner) })),
    };
    const html = renderHtml(results, { loadRecord: recordsIn(ev.dir) });
    expect(html.match(/<script\b/gi)).toHaveLength(2);
    expect(html.match(/<\/script/gi)).toHaveLength(2);
    expect(html).not.toContain('<!--');
    expect(html).not.toContain('<script>alert(1)');
    const doc = parse(html);
    expect(doc.querySelectorAll('script')).toHaveLength(2);
    const data = JSON.parse(doc.getElementById('oneway-data')?.textContent ?? '') as ReportData;
    expect(data.scenarios[0]?.title).toBe(payload);
    expect(data.runs.filter((r) => r.planner === planner)).toHaveLength(
      ev.results.runs.filter((r) => r.planner === 'eager').length,
    );
    expect(doc.querySelector('.stitle')?.textContent).toBe(payload);
    expect([...doc.querySelectorAll('table.grid thead th')].map((th) => th.textContent)).toContain(planner);
  });

  it('scriptJson round-trips and leaves no markup-significant character', () => {
    const value = { a: '</script><!-- & \u2028\u2029 >' };
    const text = scriptJson(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });

  it('renders interrupted results with no finished run', () => {
    const results: Results = { ...ev.results, interrupted: true, runs: [], summary: [], comparisons: [] };
    const html = renderHtml(results);
    const doc = parse(html);
    expect(doc.querySelector('.notice')?.textContent).toContain('Interrupted');
    expect(doc.querySelectorAll('svg.chart')).toHaveLength(0);
    expect(html).toContain('nothing to chart');
    expect(doc.querySelectorAll('td.cell.o-none')).toHaveLength(
      results.scenarios.length * results.config.planners.length,
    );
    expect(doc.querySelectorAll('button.cell-btn')).toHaveLength(0);
    expect((embeddedData(html) as ReportData).runs).toEqual([]);
  });

  it('renders results with no scenario and no planner at all', () => {
    const results: Results = {
      ...ev.results,
      config: { ...ev.results.config, planners: [], scenarios: [] },
      scenarios: [],
      runs: [],
      summary: [],
      comparisons: [],
    };
    const html = renderHtml(results);
    expect(html).toContain('No scenario ran');
    expect(parse(html).querySelectorAll('script')).toHaveLength(2);
  });

  it('keeps only the timelines of runs with findings or errors above the cap, and says so', () => {
    const html = renderHtml(ev.results, { loadRecord: recordsIn(ev.dir), maxFullTimelines: 1 });
    const data = embeddedData(html) as ReportData;
    expect(data.timelines).toBe('findings');
    const clean = data.runs.filter((r) => r.findings.length === 0 && r.error === null);
    expect(clean.length).toBeGreaterThan(0);
    expect(data.omitted_timelines).toBe(clean.length);
    for (const r of data.runs) {
      if (clean.includes(r)) {
        expect(r.timeline).toBeNull();
        expect(r.notes.join(' ')).toContain('only runs with findings or errors');
      } else expect(r.timeline).not.toBeNull();
    }
    expect(html).toContain('to keep the file small');
  });

  it('names the recovery command as the user types it, with the results directory', () => {
    // These tests run oneway from source inside its repository: npm run, and the directory as given.
    expect((embeddedData(ev.html) as ReportData).recover).toEqual({ command: 'npm run recover --', dir: ev.dir });
    // An installed oneway, run in a project: npx, and the directory relative to the project.
    const where = { source: false, root: '/work/app/node_modules/oneway', cwd: '/work/app' };
    const data = embeddedData(renderHtml(ev.results, { outDir: '/work/app/reports/latest', where })) as ReportData;
    expect(data.recover).toEqual({ command: 'npx oneway recover', dir: 'reports/latest' });
    // Without the directory the page says <out>.
    expect((embeddedData(renderHtml(ev.results, { where })) as ReportData).recover.dir).toBeNull();
  });

  it('cuts long values, with their length', () => {
    expect(clip({ a: 'x'.repeat(10) }, 8)).toEqual({ clipped: true, preview: '{"a":"xx', chars: 18 });
    expect(clip({ a: 1 }, 8)).toEqual({ a: 1 });
  });

  it('classifies outcomes from the scores', () => {
    expect(outcomeOf({ error: null, safe_completed: true, completed: true })).toBe('safe');
    expect(outcomeOf({ error: null, safe_completed: false, completed: true })).toBe('unsafe');
    expect(outcomeOf({ error: null, safe_completed: false, completed: false })).toBe('failed');
    expect(outcomeOf({ error: 'planner threw', safe_completed: false, completed: false })).toBe('error');
  });
});

describe('--reporter=html with damaged records', () => {
  it('notes a missing record and a cut-short one, and keeps what the cut one holds', async () => {
    const e = await evaluateWithHtml(['--planner=eager', '--scenario=invoice-and-notify,webhook-timeout-reconcile']);
    const [missing, cut] = e.results.runs;
    if (!missing || !cut) throw new Error('expected two runs');
    rmSync(join(e.dir, missing.record));
    const text = readFileSync(join(e.dir, cut.record), 'utf8');
    const lines = text.trimEnd().split('\n');
    // Stop while writing the last call, as a crash would: no run_end, half a line.
    const lastCall = lines.findLastIndex((l) => l.startsWith('{"type":"call"'));
    const last = lines[lastCall] ?? '';
    writeFileSync(
      join(e.dir, cut.record),
      `${lines.slice(0, lastCall).join('\n')}\n${last.slice(0, Math.floor(last.length / 2))}`,
    );

    const data = embeddedData(renderHtml(e.results, { loadRecord: recordsIn(e.dir) })) as ReportData;
    const m = data.runs[0];
    const c = data.runs[1];
    expect(m?.timeline).toBeNull();
    expect(m?.notes.join(' ')).toContain('does not exist');
    expect(m?.findings).toEqual(missing.findings);
    expect(c?.notes.join(' ')).toContain('cut short');
    expect(c?.notes.join(' ')).toContain('no run_end');
    expect(c?.timeline?.end).toBeNull();
    expect(c?.timeline?.calls.length).toBe(cut.steps - 1);
  });
});

describe('--reporter=html with comparisons and gates', () => {
  it('shows the paired comparison and the gate outcome', async () => {
    const e = await evaluateWithHtml([
      '--planner=eager,gated',
      SCENARIOS,
      '--baseline-planner=eager',
      '--fail-on=premature_irreversible_rate>2',
    ]);
    const doc = parse(e.html);
    const section = doc.querySelector('section[aria-labelledby="cmp-h"]');
    expect(section?.textContent).toContain('Against eager');
    expect(section?.querySelector('tbody th')?.textContent).toBe('gated');
    expect(section?.textContent).toContain('every gate held');
    expect(section?.textContent).toContain('premature_irreversible_rate>2');
  });

  it('has no comparisons section when none were asked for', () => {
    expect(parse(ev.html).querySelector('section[aria-labelledby="cmp-h"]')).toBeNull();
  });
});
