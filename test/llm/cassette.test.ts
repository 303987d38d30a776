import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cassetteFile, requestKey, type Cassette } from '../../harness/features/llm/cassette.ts';
import { loadPlanner } from '../../harness/engine/runner/planners.ts';
import { filesUnder, tempDir } from '../helpers/cli.ts';
import { timeless } from '../helpers/results.ts';
import { CANARY, evalLlm, plannerOf, testDeps } from './helpers.ts';
import { agent, httpError, startMockModel, type MockModel } from './mock-model.ts';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(() => mock.close());

const both = () => {
  const t = testDeps();
  return [plannerOf('plain', t.deps), plannerOf('aware', t.deps)];
};

describe('record and replay', () => {
  it('replays a recording to identical results.json (apart from wall-clock fields) and identical records, without the network', async () => {
    const cassettes = tempDir('oneway-cassettes-');
    // A 429 on the first request: the replay reports the recorded retry too.
    mock.script = (body, n) => (n === 1 ? httpError(429, 'slow down') : agent(body, n));
    mock.seen.length = 0;
    const recorded = await evalLlm(mock, {
      planners: both(),
      trials: 2,
      options: { llm_cache: 'record', llm_cache_dir: cassettes },
    });
    expect(mock.seen.length).toBeGreaterThan(0);
    expect(recorded.runs.every((r) => r.error === null)).toBe(true);
    expect(recorded.summary[0]?.usage?.retries).toBe(1);

    mock.seen.length = 0;
    mock.script = () => httpError(500, 'the replay must not ask');
    const replayed = await evalLlm(mock, {
      planners: both(),
      trials: 2,
      options: { llm_cache: 'replay', llm_cache_dir: cassettes },
    });
    expect(mock.seen).toEqual([]);
    const strip = ({ outDir: _o, ...r }: typeof recorded) => timeless(r);
    expect(strip(replayed)).toEqual(strip(recorded));
    for (const run of recorded.runs) {
      expect(readFileSync(join(replayed.outDir, run.record), 'utf8')).toEqual(
        readFileSync(join(recorded.outDir, run.record), 'utf8'),
      );
    }
    expect(JSON.parse(readFileSync(join(replayed.outDir, 'results.json'), 'utf8')).summary).toEqual(recorded.summary);
  });

  it('stores one file per request, named by the hash of the request body, with no key or header in it', async () => {
    const cassettes = tempDir('oneway-cassettes-');
    mock.script = agent;
    mock.seen.length = 0;
    const out = await evalLlm(mock, { planners: both(), options: { llm_cache: 'record', llm_cache_dir: cassettes } });
    const files = readdirSync(cassettes).sort();
    expect(files).toHaveLength(mock.seen.length);
    for (const seen of mock.seen) {
      const key = requestKey(seen.body);
      const c = JSON.parse(readFileSync(cassetteFile(cassettes, key), 'utf8')) as Cassette;
      expect(c).toMatchObject({ version: 1, key, request: seen.body, retries: 0 });
      expect(seen.headers.authorization).toContain(CANARY);
    }
    for (const f of [...filesUnder(cassettes), ...filesUnder(out.outDir)]) {
      const text = readFileSync(f, 'utf8');
      expect(text).not.toContain(CANARY);
      expect(text.toLowerCase()).not.toContain('authorization');
    }
  });

  it('ends the run with an error naming the request on a replay miss; the evaluation goes on', async () => {
    const empty = tempDir('oneway-cassettes-');
    const t = testDeps({});
    const r = await evalLlm(mock, {
      planners: [plannerOf('plain', t.deps), await loadPlanner('gated', process.cwd())],
      options: { llm_cache: 'replay', llm_cache_dir: empty },
    });
    const [miss, gated] = r.runs;
    expect(miss?.end_reason).toBe('planner_error');
    expect(miss?.error).toMatch(
      /replay miss: no cassette for request [0-9a-f]{64} \(model mock-1, 2 messages, last user: "Task: Email bob the invoice\./,
    );
    expect(miss?.error).toContain(empty);
    expect(miss?.error).toContain('--llm-cache=record');
    expect(gated?.safe_completed).toBe(true);
  });

  it('keys a request by its content: key order does not matter, a changed message does', () => {
    const a = { model: 'm', temperature: 0, messages: [{ role: 'user' as const, content: 'hi' }] };
    const b = { messages: [{ content: 'hi', role: 'user' as const }], temperature: 0, model: 'm' };
    expect(requestKey(a)).toBe(requestKey(b));
    expect(requestKey(a)).not.toBe(requestKey({ ...a, messages: [{ role: 'user', content: 'hi!' }] }));
    expect(requestKey(a)).not.toBe(requestKey({ ...a, model: 'n' }));
    expect(requestKey(a)).toMatch(/^[0-9a-f]{64}$/);
  });
});
