/**
 * A 429 with retry-after slows the whole pool: every run's next request to that model origin
 * waits for it, not only the run that got it (harness/features/llm/retry.ts, OriginLimiter). The model is
 * MSW; time is virtual (each run's `sleep` waits on a clock the test advances), so nothing sleeps.
 */
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveModel } from '../../harness/features/llm/client.ts';
import { llmOptions } from '../../harness/features/llm/options.ts';
import { createRng } from '../../harness/util/rng.ts';

/** A clock the test moves: sleeps resolve when it passes their end. */
function virtualTime() {
  let now = 0;
  const pending: { at: number; resolve(): void }[] = [];
  return {
    get now() {
      return now;
    },
    sleeps: [] as number[],
    sleep(ms: number): Promise<void> {
      this.sleeps.push(ms);
      return new Promise<void>((resolve) => pending.push({ at: now + ms, resolve }));
    },
    async advance(ms: number) {
      now += ms;
      for (const p of pending.splice(0)) {
        if (p.at <= now) p.resolve();
        else pending.push(p);
      }
      await settle();
    },
  };
}

/** Lets every promise chain that can move, move (MSW answers through a few turns of the event loop). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

const completion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [
    { index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: 'ok', refusal: null } },
  ],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
};

/** Requests as the model server saw them: which run, at what virtual time. */
const seen: { host: string; run: string; at: number }[] = [];
let clock = virtualTime();
/** Per host: answer the first request with this, the rest with a completion. */
const firstAnswer = new Map<string, () => Response>();

const server = setupServer(
  http.post(/\/v1\/chat\/completions$/, async ({ request }) => {
    const host = new URL(request.url).host;
    const body = (await request.json()) as { messages: { content: string }[] };
    seen.push({ host, run: body.messages[0]?.content ?? '', at: clock.now });
    const first = firstAnswer.get(host);
    if (first && seen.filter((s) => s.host === host).length === 1) return first();
    return HttpResponse.json(completion);
  }),
);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

/** A run's model client: its own seeded generator, the shared virtual clock, MSW as the network. */
function modelFor(host: string) {
  const opts = llmOptions({ base_url: `http://${host}/v1`, model: 'm', max_retries: '3' }, {});
  return liveModel(opts, {
    apiKey: 'test-key',
    rng: createRng(1),
    sleep: (ms) => clock.sleep(ms),
    fetch: (u, i) => fetch(u, i),
  });
}

const ask = (model: ReturnType<typeof modelFor>, run: string) =>
  model({ model: 'm', messages: [{ role: 'user', content: run }] });

describe('a retry-after slows every run of the origin', () => {
  it("holds back another run's next request until the wait is over", async () => {
    clock = virtualTime();
    const host = 'limited.model.test';
    firstAnswer.set(host, () =>
      HttpResponse.json(
        { error: { message: 'Rate limit reached', type: 'requests' } },
        { status: 429, headers: { 'retry-after': '2' } },
      ),
    );
    const a = ask(modelFor(host), 'run-a');
    await settle();
    // Run A was refused: it waits the 2 s the server asked for.
    expect(seen.filter((s) => s.host === host).map((s) => s.run)).toEqual(['run-a']);
    expect(clock.sleeps).toEqual([2000]);

    // Run B starts during the wait: its request does not go out.
    const b = ask(modelFor(host), 'run-b');
    await clock.advance(1999);
    expect(seen.filter((s) => s.host === host).map((s) => s.run)).toEqual(['run-a']);

    // Once the wait is over, both go out (A's retry and B's first request), at 2 s.
    await clock.advance(1);
    const [ra, rb] = await Promise.all([a, b]);
    const after = seen.filter((s) => s.host === host).slice(1);
    expect(after.map((s) => s.run).sort()).toEqual(['run-a', 'run-b']);
    expect(after.every((s) => s.at === 2000)).toBe(true);
    // B did not retry and did not draw a backoff of its own: only A's retry is counted, only A slept.
    expect(ra.retries).toBe(1);
    expect(rb.retries).toBe(0);
    expect(clock.sleeps).toEqual([2000]);
  });

  it('leaves the runs of other origins alone', async () => {
    clock = virtualTime();
    firstAnswer.set('busy.model.test', () =>
      HttpResponse.json({ error: { message: 'slow down' } }, { status: 429, headers: { 'retry-after': '5' } }),
    );
    const a = ask(modelFor('busy.model.test'), 'run-a');
    await settle();
    const b = await ask(modelFor('other.model.test'), 'run-b');
    expect(b.retries).toBe(0);
    expect(seen.find((s) => s.host === 'other.model.test')?.at).toBe(0);
    await clock.advance(5000);
    expect((await a).retries).toBe(1);
  });

  it('does not hold the pool for a 429 without retry-after (the run backs off alone)', async () => {
    clock = virtualTime();
    const host = 'plain.model.test';
    firstAnswer.set(host, () => HttpResponse.json({ error: { message: 'slow down' } }, { status: 429 }));
    const a = ask(modelFor(host), 'run-a');
    await settle();
    const b = await ask(modelFor(host), 'run-b');
    expect(b.retries).toBe(0);
    // A's backoff is a seeded draw below the base (500 ms); advancing past it lets A retry.
    expect(clock.sleeps).toHaveLength(1);
    await clock.advance(500);
    expect((await a).retries).toBe(1);
  });
});
