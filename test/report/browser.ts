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
