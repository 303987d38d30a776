/**
 * report.html in a real browser: Debian's chromium through playwright-core,
 * opened from file:// with every other request aborted.
 *
 * Skipped only when /usr/bin/chromium is absent, unless ONEWAY_REQUIRE_BROWSER=1
 * (set by .ci/run), which makes its absence a failure.
 * ONEWAY_SCREENSHOT=docs/report.png also writes the README's screenshot.
 *
 * One browser and one evaluation for the file. The report of the bundled suite (4 planners,
 * 2 trials) is 2 MB: loading it is most of a test's time, so a test takes the page as the one before
 * left it when that is the report with no dialog open (`show`), and loads it otherwise. The layout
 * checks load it afresh at each width (what a window that size shows); they measure the page and
 * take no screenshot (the run's temporary directory, where they went, is removed at its end).
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromium, layoutFaults, missingGlyphs, openBrowser, type Browser } from './browser.ts';
import type { Results } from '../../harness/engine/results/types.ts';
import { recordsIn, renderHtml } from '../../harness/features/report/html.ts';
import { evaluateWithHtml, prematureIrreversible, type Evaluated } from './fixture.ts';

const required = process.env.ONEWAY_REQUIRE_BROWSER === '1';
const skip = !hasChromium && !required;
const screenshot = process.env.ONEWAY_SCREENSHOT;
if (skip) {
  console.warn(
    `\n[oneway] SKIPPED the HTML report browser test: ${CHROMIUM} is not installed (apt-get install chromium; CI sets ONEWAY_REQUIRE_BROWSER=1 so it fails instead).\n`,
  );
}

describe('report.html in chromium', () => {
  let ev: Evaluated;
  let browser: Browser | undefined;
  let url: string;
  let onePlanner: string;

  beforeAll(async () => {
    if (skip) return;
    expect(hasChromium, `${CHROMIUM} is required (ONEWAY_REQUIRE_BROWSER=1): apt-get install chromium`).toBe(true);
    // The browser starts while the evaluation runs.
    const opening = openBrowser();
    ev = await evaluateWithHtml(['--planner=eager,speculative,gated,serial', '--trials=2']);
    url = pathToFileURL(resolve(ev.dir, 'report.html')).href;
    // The same results with one planner: the narrowest chart.
    const one = ev.results.config.planners[0]!;
    const only: Results = {
      ...ev.results,
      config: { ...ev.results.config, planners: [one] },
      runs: ev.results.runs.filter((r) => r.planner === one),
      summary: ev.results.summary.filter((s) => s.planner === one),
      comparisons: [],
    };
    // Rendered as an installed oneway would, in a project at /work/app with results in reports/latest.
    writeFileSync(
      join(ev.dir, 'one-planner.html'),
      renderHtml(only, {
        loadRecord: recordsIn(ev.dir),
        outDir: '/work/app/reports/latest',
        where: { source: false, root: '/work/app/node_modules/oneway', cwd: '/work/app' },
      }),
    );
    onePlanner = pathToFileURL(join(ev.dir, 'one-planner.html')).href;
    browser = await opening;
    await browser.page.goto(url);
  }, 120_000);

  afterAll(async () => {
    if (browser) {
      // Whatever a test did, the page must not have tried the network or logged an error.
      expect(browser.attempted).toEqual([]);
      expect(browser.errors).toEqual([]);
      await browser.close();
    }
  });

  // The dialog has an `open` attribute exactly while it is shown.
  const dialogOpen = () =>
    browser!.page
      .locator('dialog#drill[open]')
      .count()
      .then((n) => n === 1);
  const cell = (scenario: string, planner: string) =>
    `.cell-btn[data-scenario="${scenario}"][data-planner="${planner}"]`;
  /** Opens the drill-down of the first run with a premature irreversible call: that run and call. */
  const openPremature = async (page: NonNullable<typeof browser>['page']) => {
    const found = prematureIrreversible(ev);
    await page.click(cell(found.run.scenario, found.run.planner));
    await expect.poll(dialogOpen).toBe(true);
    return found;
  };
  /** The page showing the report with no dialog open: as the test before left it, or loaded again. */
  const show = async () => {
    const page = browser!.page;
    if (page.url() !== url || (await dialogOpen())) await page.goto(url);
    return page;
  };

  it.skipIf(skip)('renders the chart bars and the grid', async () => {
    const page = await show();
    const planners = ev.results.config.planners.length;
    expect(await page.locator('svg.chart rect.bar').count()).toBe(planners * 2);
    // Every bar is drawn with a size (a 0% bar keeps a hairline).
    const areas = await page.locator('svg.chart rect.bar').evaluateAll((els) =>
      els.map((e) => {
        const r = e.getBoundingClientRect();
        return r.width * r.height;
      }),
    );
    for (const a of areas) expect(a).toBeGreaterThan(0);
    expect(await page.locator('table.grid tbody td.cell').count()).toBe(ev.results.scenarios.length * planners);
    expect(await page.locator('table.grid tbody tr').count()).toBe(ev.results.scenarios.length);
    expect(browser!.attempted).toEqual([]);
  });

  it.skipIf(skip)(
    'opens a run with a premature irreversible call and marks it, with the missing precondition',
    async () => {
      const page = await show();
      const { run, call } = await openPremature(page);
      const dialog = page.locator('dialog#drill');
      const trial = dialog.locator(`.trial-btn[data-trial="${run.trial}"]`);
      if ((await trial.count()) > 0) await trial.click();
      const card = dialog.locator(`article.call[data-step="${call.step}"]`);
      await expect.poll(() => card.count()).toBe(1);
      expect(await card.getAttribute('class')).toContain('is-premature');
      expect(await card.getAttribute('data-tool')).toBe(call.tool);
      expect(await card.locator('.cls').innerText()).toContain('irreversible');
      const mark = card.locator('.mark.m-premature');
      expect(await mark.isVisible()).toBe(true);
      const text = await mark.innerText();
      expect(text).toContain('premature');
      expect(call.preconditions.missing.length).toBeGreaterThan(0);
      for (const m of call.preconditions.missing) expect(text).toContain(m);
      // The run's end and the recovery view are there too.
      expect(await dialog.locator('#drill-end').count()).toBe(1);
      expect(await dialog.locator('#drill-recovery').count()).toBe(1);
      await page.keyboard.press('Escape');
      await expect.poll(dialogOpen).toBe(false);
    },
  );

  it.skipIf(skip)('is operable from the keyboard: Enter opens a cell, Escape closes it and returns focus', async () => {
    const page = await show();
    const first = page.locator('.cell-btn').first();
    await first.focus();
    await page.keyboard.press('Enter');
    await expect.poll(dialogOpen).toBe(true);
    expect(await page.locator('#drill-title').innerText()).toContain(ev.results.scenarios[0]!.id);
    await page.keyboard.press('Escape');
    await expect.poll(dialogOpen).toBe(false);
    expect(await first.evaluate((b) => b.matches(':focus'))).toBe(true);
  });

  it.skipIf(skip)('opens the run named in the address (#run=scenario/planner/trial)', async () => {
    const page = browser!.page;
    const r = ev.results.runs.find((x) => x.trial === 2)!;
    // From the report already shown: the address changes, the page stays (hashchange). A page loaded
    // with the address opens its run too: the recovery test below loads one so.
    await page.goto(`${url}#run=${encodeURIComponent(r.scenario)}/${encodeURIComponent(r.planner)}/2`);
    await expect.poll(dialogOpen).toBe(true);
    expect(await page.locator('.trial-btn[aria-pressed="true"]').getAttribute('data-trial')).toBe('2');
    await page.keyboard.press('Escape');
    await expect.poll(dialogOpen).toBe(false);
  });

  it.skipIf(skip)('has a glyph in the installed fonts for every character it shows, marks included', async () => {
    const page = await show();
    await openPremature(page);
    // The drill-down's legend lists every mark; the data names them all (a mark no run has included).
    expect(await missingGlyphs(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await expect.poll(dialogOpen).toBe(false);
  });

  it.skipIf(skip)('ends the recovery section with the command the user would type', async () => {
    const page = await show();
    const { run } = await openPremature(page);
    // From source in the oneway repository (as the tests run): npm run, and where the results are.
    expect(await page.locator('#drill .recover-command').innerText()).toBe(
      `npm run recover -- ${ev.dir}/${run.record} [--apply]`,
    );
    // From an installed package, in the project: npx oneway, and the directory relative to it.
    const other = ev.results.runs.find((r) => r.planner === ev.results.config.planners[0])!;
    await page.goto(
      `${onePlanner}#run=${encodeURIComponent(other.scenario)}/${encodeURIComponent(other.planner)}/${other.trial}`,
    );
    await expect.poll(dialogOpen).toBe(true);
    expect(await page.locator('#drill .recover-command').innerText()).toBe(
      `npx oneway recover reports/latest/${other.record} [--apply]`,
    );
  });

  for (const width of [800, 1400]) {
    it.skipIf(skip)(
      `fits ${width} px: no sideways scrolling, no clipped text, the chart across the width`,
      async () => {
        const page = browser!.page;
        await page.setViewportSize({ width, height: 900 });
        await page.goto(url);
        const full = await layoutFaults(page);
        // The chart spans the content column (less its padding), not a third of it.
        const [chart, column] = await page.evaluate(() => [
          document.querySelector('svg.chart')!.getBoundingClientRect().right -
            document.querySelector('.chart-axis, svg.chart')!.getBoundingClientRect().left,
          document.querySelector('main')!.clientWidth - 40,
        ]);
        // The drill-down of a run with findings fits too.
        await openPremature(page);
        const drill = await layoutFaults(page);
        await page.keyboard.press('Escape');
        await expect.poll(dialogOpen).toBe(false);
        // With one planner the chart is narrowest: its legend must still show whole.
        await page.goto(onePlanner);
        expect({ full, drill, onePlanner: await layoutFaults(page), chartAcross: chart >= column * 0.95 }).toEqual({
          full: [],
          drill: [],
          onePlanner: [],
          chartAcross: true,
        });
        await page.setViewportSize({ width: 1280, height: 900 });
      },
    );
  }

  it.skipIf(skip || !screenshot)('writes the README screenshot (ONEWAY_SCREENSHOT)', async () => {
    const page = browser!.page;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(url);
    await page.click(
      cell(
        process.env.ONEWAY_SCREENSHOT_SCENARIO ?? 'release-with-migration',
        process.env.ONEWAY_SCREENSHOT_PLANNER ?? 'speculative',
      ),
    );
    await expect.poll(dialogOpen).toBe(true);
    await page.screenshot({ path: resolve(screenshot!) });
  });
});
