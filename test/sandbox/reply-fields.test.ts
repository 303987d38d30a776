/**
 * What the sandbox adds to a tool's reply is what harness/domain/rules/reply.ts says it adds (lint's
 * unknown-result-field reads that list): for every tool of a scenario with an approval tool, a
 * reconciler and a reader, the reply's keys are its declared `returns:` keys plus exactly those fields.
 */
import { describe, expect, it } from 'vitest';
import { addedReplyFields } from '../../harness/domain/rules/reply.ts';
import { Sandbox } from '../../harness/engine/sandbox/sandbox.ts';
import { EMAIL_YAML, scenarioFrom } from '../helpers/run.ts';
import { payoutScenario } from '../restarts/payout.ts';

const scenarios = [scenarioFrom(EMAIL_YAML), payoutScenario({ outcome: 'ledger' }), payoutScenario()];

describe('the fields the sandbox adds to a reply', () => {
  it.each(scenarios.map((s) => [s.id + ' ' + s.tools.map((t) => t.name).join(','), s] as const))(
    'are the declared returns: plus addedReplyFields, tool by tool (%s)',
    (_name, s) => {
      let checked = 0;
      for (const tool of s.tools) {
        const sandbox = new Sandbox(s, 1);
        const args: Record<string, unknown> = {};
        for (const [p, schema] of Object.entries(tool.parameters.properties))
          args[p] = (schema as { type?: string }).type === 'number' ? 1 : 'x';
        const { events } = sandbox.executeBatch({
          turn: 1,
          batch: 0,
          firstStep: 1,
          calls: [{ tool: tool.name, args }],
        });
        const e = events[0];
        if (!e || e.status !== 'ok') continue;
        const keys = Object.keys(e.result as object).sort();
        const want = [...Object.keys(tool.returns ?? {}), ...addedReplyFields(tool, s.tools)].sort();
        expect(keys, tool.name).toEqual(want);
        checked++;
      }
      expect(checked).toBeGreaterThan(2);
    },
  );

  it('include approved, applied/reported and the read tables where they apply', () => {
    const [email, ledger] = scenarios as [(typeof scenarios)[0], (typeof scenarios)[0]];
    const named = (s: typeof email, n: string) => s.tools.find((t) => t.name === n) as (typeof email.tools)[0];
    expect(addedReplyFields(named(email, 'request_approval'), email.tools)).toEqual(['approved']);
    expect(addedReplyFields(named(email, 'get_email_status'), email.tools)).toEqual(['applied', 'reported']);
    expect(addedReplyFields(named(ledger, 'list_payouts'), ledger.tools)).toEqual(['applied', 'reported', 'payouts']);
    expect(addedReplyFields(named(email, 'send_email'), email.tools)).toEqual([]);
  });
});
