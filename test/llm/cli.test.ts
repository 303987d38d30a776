import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import { filesUnder, runCli, tempDir } from '../helpers/cli.ts';
import { readResults, timeless } from '../helpers/results.ts';
import { EMAIL_YAML } from '../helpers/run.ts';
import { CANARY } from './helpers.ts';
import { startMockModel, type MockModel } from './mock-model.ts';

let mock: MockModel;
let dir: string;
beforeAll(async () => {
  mock = await startMockModel();
  dir = tempDir('oneway-llm-cli-');
  writeFileSync(join(dir, 'email.yaml'), EMAIL_YAML);
  writeFileSync(join(dir, 'prices.yaml'), 'mock-1: { prompt_per_million: 2.5, completion_per_million: 10 }\n');
  // The planners read the key from the environment, as they do in production.
  vi.stubEnv('OPENAI_API_KEY', CANARY);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await mock.close();
});

describe('npm run eval with the LLM planners', () => {
  const args = (out: string, cassettes: string, mode: string) => [
    '--planner=openai,openai-aware,gated',
    `--scenario=${join(dir, 'email.yaml')}`,
    `--planner-opt=base_url=${mock.baseURL}`,
    '--planner-opt=model=mock-1',
    `--planner-opt=price_file=${join(dir, 'prices.yaml')}`,
    `--llm-cache=${mode}`,
    `--llm-cache-dir=${cassettes}`,
    `--out=${out}`,
  ];

  it('records through main(), shows tokens and cost, and replays the same results with the model gone', async () => {
    const [recOut, cassettes] = [tempDir(), tempDir()];
    const rec = await runCli(main, args(recOut, cassettes, 'record'), dir);
    expect(rec.code, rec.stderr).toBe(0);
    const results = readResults(recOut);
    const [plain, aware, gated] = results.summary;
    expect(plain).toMatchObject({
      planner: 'openai',
      premature_irreversible_rate: 1,
      usage: { requests: 2, retries: 0 },
    });
    expect(aware).toMatchObject({
      planner: 'openai-aware',
      safe_completion_rate: 1,
      usage: { requests: 3, retries: 0 },
    });
    expect(gated?.usage).toBeUndefined();
    const u = aware!.usage!;
    expect(u.estimated_cost_usd).toBeCloseTo((u.prompt_tokens * 2.5 + u.completion_tokens * 10) / 1e6, 5);
    expect(rec.stdout).toContain('tokens in/out');
    expect(rec.stdout).toMatch(new RegExp(`${u.prompt_tokens}/${u.completion_tokens} \\$0\\.\\d{4}`));
    expect(results.runs.find((r) => r.planner === 'openai-aware')?.usage).toMatchObject({
      model: 'mock-1',
      estimated_cost_usd: expect.any(Number),
    });

    const seen = mock.seen.length;
    const repOut = tempDir();
    const rep = await runCli(main, args(repOut, cassettes, 'replay'), dir);
    expect(rep.code, rep.stderr).toBe(0);
    expect(mock.seen.length).toBe(seen);
    expect(timeless(readResults(repOut))).toEqual(timeless(results));

    // The key went to the server on every live request, and into no file.
    expect(mock.seen.every((s) => s.headers.authorization === `Bearer ${CANARY}`)).toBe(true);
    for (const f of [...filesUnder(recOut), ...filesUnder(repOut), ...filesUnder(cassettes)])
      expect(readFileSync(f, 'utf8')).not.toContain(CANARY);
  });

  it('leaves the tokens column out when no planner reports usage', async () => {
    const r = await runCli(
      main,
      ['--planner=gated', `--scenario=${join(dir, 'email.yaml')}`, `--out=${tempDir()}`],
      dir,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('tokens');
  });

  it('exits 2 on an unknown --llm-cache mode', async () => {
    const r = await runCli(main, ['--planner=openai', '--llm-cache=sometimes', `--out=${tempDir()}`], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--llm-cache must be off, record or replay, got "sometimes"');
  });

  it('lists the LLM planners in --help with the cache options', async () => {
    const r = await runCli(main, ['--help']);
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/Built-in: .*openai, openai-aware/); // wrapped to the terminal
    expect(r.stdout).toContain('--llm-cache=off|record|replay');
    expect(r.stdout).toContain('--llm-cache-dir=DIR');
  });
});
