/**
 * The page: one self-contained HTML file. Styles are inlined from `style.css`
 * beside this module, the drill-down script from the typed modules under
 * `client/`, bundled into one script (client-bundle.ts), the charts are
 * inline SVG, and the data is one `<script type="application/json">` block. A
 * Content-Security-Policy forbids every fetch, so a browser opening the file
 * makes no request at all.
 */
import { readFileSync } from 'node:fs';
import type { Results } from '../../../engine/results/types.ts';
import { renderRateChart, renderSummaryTable } from './chart.ts';
import { clientScript } from './client-bundle.ts';
import type { ReportData } from './data.ts';
import { escapeHtml as h, scriptJson } from './escape.ts';
import { renderGrid, renderGridLegend } from './grid.ts';
import { renderComparisonsAndGates, renderNotices, renderRunInfo } from './sections.ts';

const asset = (name: string) => readFileSync(new URL(name, import.meta.url), 'utf8');

/** The assets, read once; checked so that neither can end its element early. */
let assets: { css: string; js: string } | undefined;
function loadAssets(): { css: string; js: string } {
  if (!assets) {
    const css = asset('./style.css');
    const js = clientScript();
    if (/<\/style/i.test(css) || /<\/script|<!--/i.test(js))
      throw new Error('harness/features/report/html: an inlined asset contains a closing tag');
    assets = { css, js };
  }
  return assets;
}

const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/**
 * The whole page.
 *
 * @example
 * renderPage(results, buildReportData(results)) // '<!doctype html>...'
 */
export function renderPage(results: Results, data: ReportData): string {
  const { css, js } = loadAssets();
  const planners = results.config.planners;
  const title = `oneway report: ${planners.join(', ') || 'no planner'} · ${results.runs.length} run${results.runs.length === 1 ? '' : 's'}`;
  const capped =
    data.timelines === 'findings'
      ? `<p class="notice warn">This report holds ${data.runs.length} runs: to keep the file small, only the ${data.runs.length - data.omitted_timelines} runs with findings or errors embed their timelines (${data.omitted_timelines} do not; their records are under <code>runs/</code>).</p>`
      : '';
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<title>${h(title)}</title>`,
    `<style>${css}</style>`,
    '</head>',
    '<body>',
    '<a class="skip" href="#grid-h">Skip to the scenario grid</a>',
    '<header class="page">',
    '<h1>oneway: premature irreversible calls</h1>',
    renderRunInfo(results),
    renderNotices(results),
    '</header>',
    '<main>',
    '<section aria-labelledby="glance-h">',
    '<h2 id="glance-h">At a glance</h2>',
    '<div class="glance">',
    `<figure>${renderRateChart(results.summary)}<figcaption>Bars: share of runs; whiskers: 95% intervals clustered by scenario (the unit of evidence: Wilson at the effective sample size, so repeated identical trials do not narrow them). Hatched bars are premature irreversible calls.</figcaption></figure>`,
    `<div><div class="table-wrap">${renderSummaryTable(results.summary, results.config.guard)}</div><p class="hint">Safe completion: completed with no premature irreversible call, no parallel irreversible call, no unreconciled retry and no duplicate effect executed. Steps, depth and sim time are the cost of caution: calls issued, sequential batches, and the critical path on the virtual clock.</p></div>`,
    '</div>',
    '</section>',
    renderComparisonsAndGates(results),
    '<section aria-labelledby="grid-h">',
    '<h2 id="grid-h" tabindex="-1">Scenarios × planners</h2>',
    '<p class="hint">Each cell is one planner on one scenario, a chip per trial. Select a cell (click, or Tab then Enter) to see its runs call by call: what was premature, what each effect needs to be undone.</p>',
    renderGridLegend(),
    capped,
    '<noscript><p class="notice warn">The run details need JavaScript; the figures above do not.</p></noscript>',
    `<div class="grid-wrap">${renderGrid(results)}</div>`,
    '</section>',
    '</main>',
    '<dialog id="drill" aria-labelledby="drill-title">',
    '<div class="drill-head"><h2 id="drill-title">Run</h2><button class="close" id="drill-close" type="button">Close <span aria-hidden="true">✕</span></button></div>',
    '<div id="drill-body"></div>',
    '</dialog>',
    `<script type="application/json" id="oneway-data">${scriptJson(data)}</script>`,
    `<script>${js}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
