/**
 * An external agent reports its own model usage with `finish` (usage: {prompt_tokens, completion_tokens,
 * requests?, cost_usd?}); a run whose agent reported nothing has no usage (unknown), never zeros.
 */
import { describe, expect, it } from 'vitest';
import { agentUsage } from '../../harness/features/mcp/server.ts';
import { connectSession, EMAIL, sessionRuns } from './helpers.ts';

describe('usage an agent reports', () => {
  it('is recorded on its run; a run that reported nothing has unknown usage', async () => {
    const runs = sessionRuns();

    const a = await connectSession(runs);
    await a.callTool({ name: 'verify_recipient', arguments: { email: EMAIL } });
    await a.callTool({
      name: 'finish',
      arguments: {
        reason: 'done',
        usage: { prompt_tokens: 1200, completion_tokens: 80, requests: 3, cost_usd: 0.0042 },
      },
    });
    const b = await connectSession(runs);
    await b.callTool({ name: 'finish', arguments: { reason: 'nothing to report' } });
    await runs.settle();

    const results = runs.results();
    const [first, second] = [...results.runs].sort((x, y) => x.trial - y.trial);
    expect(first?.usage).toEqual({
      prompt_tokens: 1200,
      completion_tokens: 80,
      requests: 3,
      estimated_cost_usd: 0.0042,
    });
    expect(second?.usage).toBeUndefined();
    // The summary sums what was reported; the cost is known only because every run with usage priced it.
    expect(results.summary[0]?.usage).toMatchObject({
      prompt_tokens: 1200,
      completion_tokens: 80,
      estimated_cost_usd: 0.0042,
    });
  });

  it('reads only well-formed counts (anything else is unknown)', () => {
    expect(agentUsage({ prompt_tokens: 5, completion_tokens: 1 })).toEqual({
      prompt_tokens: 5,
      completion_tokens: 1,
      estimated_cost_usd: null,
    });
    expect(agentUsage({ prompt_tokens: -1, completion_tokens: 1 })).toBeUndefined();
    expect(agentUsage({ prompt_tokens: '5', completion_tokens: 1 })).toBeUndefined();
    expect(agentUsage(undefined)).toBeUndefined();
  });
});
