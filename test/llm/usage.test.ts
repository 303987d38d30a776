import { RateLimitError, InternalServerError, AuthenticationError, APIConnectionError } from 'openai';
import { describe, expect, it } from 'vitest';
import { estimateCost, parsePrices } from '../../harness/features/llm/prices.ts';
import { redact } from '../../harness/features/llm/redact.ts';
import { backoffMs, classify, withRetries, RequestFailed } from '../../harness/features/llm/retry.ts';
import { llmOptions } from '../../harness/features/llm/options.ts';
import { sumUsage } from '../../harness/engine/scoring/aggregate.ts';
import { createRng } from '../../harness/util/rng.ts';
import { UsageError } from '../../harness/core/errors.ts';

describe('usage and cost', () => {
  it('sums usage over runs; the cost only when every run had one', () => {
    const u = (p: number, c: number, cost?: number | null) => ({
      usage: {
        prompt_tokens: p,
        completion_tokens: c,
        requests: 1,
        retries: 1,
        ...(cost !== undefined ? { estimated_cost_usd: cost } : {}),
      },
    });
    expect(sumUsage([u(10, 2, 0.1), u(5, 1, 0.2), {}])).toEqual({
      prompt_tokens: 15,
      completion_tokens: 3,
      requests: 2,
      retries: 2,
      estimated_cost_usd: 0.3,
    });
    expect(sumUsage([u(10, 2, 0.1), u(5, 1, null)]).estimated_cost_usd).toBeNull();
    expect(sumUsage([u(10, 2, 0.1), u(5, 1)]).estimated_cost_usd).toBeNull();
  });

  it('estimates the cost from a price table, and none for a model it does not name', () => {
    const table = parsePrices('gpt-x: { prompt_per_million: 0.15, completion_per_million: 0.6 }', 'inline');
    expect(estimateCost(table, 'gpt-x', 1_000_000, 500_000)).toBe(0.45);
    expect(estimateCost(table, 'gpt-y', 1_000_000, 500_000)).toBeNull();
  });

  it('rejects a price table that is not {model: {prompt_per_million, completion_per_million}}', () => {
    expect(() => parsePrices('gpt-x: { prompt_per_million: -1, completion_per_million: 1 }', 'p.yaml')).toThrow(
      /p\.yaml: invalid price table at gpt-x\.prompt_per_million/,
    );
    expect(() => parsePrices('gpt-x: { prompt: 1 }', 'p.yaml')).toThrow(UsageError);
    expect(() => llmOptions({ price_file: '/nonexistent/prices.yaml' }, {})).toThrow(/price_file cannot be read/);
  });

  it('takes the inline prices option over the file and the environment for model and base URL', () => {
    const o = llmOptions(
      { prices: '{"m": {"prompt_per_million": 1, "completion_per_million": 2}}' },
      { OPENAI_MODEL: 'm', OPENAI_BASE_URL: 'http://localhost:11434/v1/' },
    );
    expect(o).toMatchObject({
      model: 'm',
      baseURL: 'http://localhost:11434/v1',
      prices: { m: { prompt_per_million: 1 } },
      cache: 'off',
    });
    expect(llmOptions({ model: 'n' }, { OPENAI_MODEL: 'm' }).model).toBe('n');
    expect(() => llmOptions({ base_url: 'http://user:pw@host/v1' }, {})).toThrow(/must not carry credentials/);
  });
});

describe('retries', () => {
  const headers = new Headers();
  it('retries 429, 5xx and connection failures, not 401', () => {
    expect(classify(new RateLimitError(429, {}, 'slow', headers)).retryable).toBe(true);
    expect(classify(new InternalServerError(502, {}, 'bad gateway', headers)).retryable).toBe(true);
    expect(classify(new APIConnectionError({ message: 'reset' })).retryable).toBe(true);
    expect(classify(new AuthenticationError(401, {}, 'no', headers)).retryable).toBe(false);
  });

  it('backs off exponentially with full jitter, capped, from the seeded generator', () => {
    const draws = [0, 1, 2, 3, 4, 5, 10].map((a) => backoffMs(a, { baseMs: 500, capMs: 8000, rng: createRng(1) }));
    const ceilings = [500, 1000, 2000, 4000, 8000, 8000, 8000];
    draws.forEach((d, i) => expect(d).toBeLessThan(ceilings[i]!));
    expect(draws).toEqual(
      [0, 1, 2, 3, 4, 5, 10].map((a) => backoffMs(a, { baseMs: 500, capMs: 8000, rng: createRng(1) })),
    );
    expect(backoffMs(3, { baseMs: 0, rng: createRng(1) })).toBe(0);
  });

  it('gives up after max retries with the count, waiting between attempts', async () => {
    const sleeps: number[] = [];
    let attempts = 0;
    const op = async () => {
      attempts++;
      throw new RateLimitError(429, {}, 'slow', headers);
    };
    const e = await withRetries(op, {
      maxRetries: 3,
      baseMs: 100,
      rng: createRng(2),
      sleep: async (ms) => void sleeps.push(ms),
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RequestFailed);
    expect(e).toMatchObject({ retries: 3, exhausted: true });
    expect(attempts).toBe(4);
    expect(sleeps).toHaveLength(3);
  });
});

describe('redaction', () => {
  it('removes the key, key-shaped strings and bearer tokens', () => {
    expect(redact('key abc-secret-123 was wrong', ['abc-secret-123'])).toBe('key [redacted] was wrong');
    expect(redact('Incorrect API key provided: sk-proj-****abcd.', [])).toBe('Incorrect API key provided: [redacted].');
    expect(redact('Authorization: Bearer tok_123', [])).toBe('Authorization: Bearer [redacted]');
  });
});
