/**
 * The HTML report's drill-down, run in the browser (bundled into one script that report.html
 * inlines: harness/features/report/html/client-bundle.ts). It reads the embedded JSON, opens a
 * dialog with a cell's runs on a click, Enter, or an address `#run=scenario/planner/trial`, and
 * keeps the address in step with the open run.
 */
import type { ReportData, RunView } from '../data.ts';
import { renderRun } from './drill.ts';

function start(): void {
  const dataEl = document.getElementById('oneway-data');
  const dialogEl = document.getElementById('drill');
  const titleEl = document.getElementById('drill-title');
  const bodyEl = document.getElementById('drill-body');
  if (!dataEl || !(dialogEl instanceof HTMLDialogElement) || !titleEl || !bodyEl) return;
  const dialog: HTMLDialogElement = dialogEl;
  const target = { title: titleEl, body: bodyEl };
  const data = JSON.parse(dataEl.textContent || '{}') as ReportData;

  const byPair = new Map<string, RunView[]>();
  const titles = new Map(data.scenarios.map((s) => [s.id, s.title]));
  for (const r of data.runs) {
    const k = `${r.scenario}\u0000${r.planner}`;
    const list = byPair.get(k);
    if (list) list.push(r);
    else byPair.set(k, [r]);
  }
  for (const runs of byPair.values()) runs.sort((a, b) => a.trial - b.trial);

  /** Where focus returns when the dialog closes. */
  let opener: HTMLElement | null = null;

  // Open the first trial that went wrong: that is what a reader of the grid clicked for.
  const defaultRun = (runs: RunView[]): RunView => runs.find((r) => r.outcome !== 'safe') ?? (runs[0] as RunView);

  function open(scenario: string, planner: string, trial: number | undefined, from?: HTMLElement | null): void {
    const runs = byPair.get(`${scenario}\u0000${planner}`);
    if (!runs || runs.length === 0) return;
    const run = trial === undefined ? defaultRun(runs) : (runs.find((r) => r.trial === trial) ?? defaultRun(runs));
    opener = from || opener;
    renderRun(data, run, runs, titles.get(run.scenario), target, (t) => open(run.scenario, run.planner, t));
    if (!dialog.open) dialog.showModal();
    const hash = `#run=${encodeURIComponent(scenario)}/${encodeURIComponent(planner)}/${run.trial}`;
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }

  dialog.addEventListener('close', () => {
    if (location.hash.indexOf('#run=') === 0) history.replaceState(null, '', location.pathname + location.search);
    if (opener && document.contains(opener)) opener.focus();
  });
  document.getElementById('drill-close')?.addEventListener('click', () => dialog.close());
  // A click on the backdrop (outside the dialog box) closes it.
  dialog.addEventListener('click', (e) => {
    if (e.target !== dialog) return;
    const r = dialog.getBoundingClientRect();
    if (e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom) dialog.close();
  });
  document.addEventListener('click', (e) => {
    const btn = e.target instanceof Element ? e.target.closest('.cell-btn') : null;
    if (!(btn instanceof HTMLElement)) return;
    open(btn.getAttribute('data-scenario') || '', btn.getAttribute('data-planner') || '', undefined, btn);
  });

  function openFromHash(): void {
    const m = /^#run=([^/]*)\/([^/]*)\/(\d+)$/.exec(location.hash);
    if (!m) return;
    const scenario = decodeURIComponent(m[1] || '');
    const planner = decodeURIComponent(m[2] || '');
    const btn = Array.from(document.querySelectorAll('.cell-btn')).find(
      (b) => b.getAttribute('data-scenario') === scenario && b.getAttribute('data-planner') === planner,
    );
    open(scenario, planner, Number(m[3]), btn instanceof HTMLElement ? btn : null);
  }
  window.addEventListener('hashchange', openFromHash);
  openFromHash();
}

start();
