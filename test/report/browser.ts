/**
 * Debian's chromium driven by playwright-core (which downloads no browser), in a
 * fresh profile, with every request that is not a file: URL aborted and recorded,
 * and console errors collected.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Non-file requests the page attempted (each was aborted). */
  attempted: string[];
  /** Console errors and uncaught exceptions. */
  errors: string[];
  close(): Promise<void>;
}

export async function openBrowser(viewport = { width: 1280, height: 900 }): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'oneway-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport,
    colorScheme: 'light',
  });
  const attempted: string[] = [];
  const errors: string[] = [];
  const offline = (url: string) => !url.startsWith('file:');
  context.on('request', (r) => {
    if (offline(r.url())) attempted.push(r.url());
  });
  await context.route('**', (route) => (offline(route.request().url()) ? route.abort() : route.continue()));
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return {
    context,
    page,
    attempted,
    errors,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * What makes the page hard to read at the current viewport: sideways scrolling of the page
 * itself (a wide table may scroll inside its own container), text cut off by an element with
 * hidden overflow, and SVG text drawn outside its SVG's box (the browser clips it there).
 * Each as a short description; none is an empty list.
 */
export function layoutFaults(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const faults: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth)
      faults.push(`the page scrolls sideways: ${root.scrollWidth} px wide in a ${root.clientWidth} px window`);
    const name = (e: Element) =>
      `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.getAttribute('class') ? `.${e.getAttribute('class')!.trim().split(/\s+/).join('.')}` : ''}`;
    const shown = (e: Element) => e.getClientRects().length > 0;
    for (const e of document.querySelectorAll('body *')) {
      if (!(e instanceof HTMLElement) || !shown(e) || e.classList.contains('visually-hidden')) continue;
      const style = getComputedStyle(e);
      const hides = ['hidden', 'clip'].includes(style.overflowX) || style.textOverflow === 'ellipsis';
      if (hides && e.scrollWidth > e.clientWidth + 1)
        faults.push(
          `${name(e)} cuts its text: ${e.scrollWidth} px in ${e.clientWidth} px (“${(e.textContent ?? '').slice(0, 60)}”)`,
        );
    }
    for (const t of document.querySelectorAll('svg text')) {
      const svg = (t as SVGTextElement).ownerSVGElement;
      if (!svg || !shown(t) || (t.textContent ?? '').trim() === '') continue;
      const box = svg.getBoundingClientRect();
      const r = t.getBoundingClientRect();
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)
        faults.push(
          `svg text “${t.textContent}” is drawn outside its svg (${Math.round(r.left - box.left)}..${Math.round(r.right - box.left)} of ${Math.round(box.width)} px)`,
        );
    }
    return faults;
  });
}

/**
 * The characters the page shows (its text, and every glyph of the embedded data: outcomes and
 * marks) that no installed font has: drawn, each looks exactly like a character no font has
 * (the empty box). Checked in the page's own font stack.
 */
export function missingGlyphs(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const data = JSON.parse(document.getElementById('oneway-data')?.textContent ?? '{}') as {
      outcomes?: Record<string, { glyph: string }>;
      marks?: Record<string, { glyph: string }>;
    };
    const text = [
      document.body.innerText,
      ...Object.values(data.outcomes ?? {}).map((o) => o.glyph),
      ...Object.values(data.marks ?? {}).map((m) => m.glyph),
      ...Array.from(document.querySelectorAll('svg text'), (t) => t.textContent ?? ''),
    ].join('');
    const chars = [...new Set(Array.from(text))].filter((c) => c.codePointAt(0)! > 0x7e);
    const canvas = document.createElement('canvas');
    canvas.width = 40;
    canvas.height = 40;
    const g = canvas.getContext('2d', { willReadFrequently: true })!;
    g.font = `24px ${getComputedStyle(document.body).fontFamily}`;
    const draw = (c: string) => {
      g.clearRect(0, 0, 40, 40);
      g.fillText(c, 4, 30);
      return Array.from(g.getImageData(0, 0, 40, 40).data).join(',');
    };
    // A private-use character: no font draws it, so it is the empty box.
    const none = draw('\u{10FFFD}');
    return chars.filter((c) => draw(c) === none).map((c) => `${c} (U+${c.codePointAt(0)!.toString(16).toUpperCase()})`);
  });
}
