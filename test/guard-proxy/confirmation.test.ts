/**
 * `oneway guard` in production keeps the confirmation rule: a call that requires a yes passes only
 * after the server's confirmation tool replied approved to that very call, and consumes the yes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGuardTools } from '../../harness/features/guard-proxy/tools-file.ts';
import { tempDir } from '../helpers/cli.ts';
import type { CallEvent } from '../../harness/core/record.ts';
import { KnownWorld } from '../../harness/features/guard-proxy/known.ts';
import { RETAIL_YAML } from '../helpers/language.ts';
import { scenarioFrom } from '../helpers/run.ts';

const scenario = scenarioFrom(RETAIL_YAML);
const W1 = { order_id: '#W1', items: ['a', 'b'] };
const event = (tool: string, args: Record<string, unknown>, extra: Partial<CallEvent> = {}): CallEvent =>
  ({ type: 'call', step: 1, batch: 1, tool, args, status: 'ok', applied: true, effects: [], ...extra }) as CallEvent;

describe('the production guard and confirmations', () => {
  /** The reply of the server's confirmation tool, as the guard observes it live in a session. */
  const answered = (known: KnownWorld, session: string, args: Record<string, unknown>, approved: boolean) =>
    known.observe(session, 'confirm', { tool: 'exchange', args }, { approved }, 'reversible', 1);

  it('refuses a call without a yes, passes it after one, and one yes passes one call', () => {
    const known = new KnownWorld(scenario, [], 'run-1');
    const exchange = { tool: 'exchange', args: W1 };
    expect(known.assess(exchange, 's1').missing).toEqual([
      'oneway.confirmed(args="{\\"items\\":[\\"a\\",\\"b\\"],\\"order_id\\":\\"#W1\\"}", tool=exchange)',
    ]);
    // A no licenses nothing.
    answered(known, 's1', W1, false);
    expect(known.assess(exchange, 's1').missing).toHaveLength(1);
    // A yes, lists in another order: the call passes.
    answered(known, 's1', { order_id: '#W1', items: ['b', 'a'] }, true);
    expect(known.assess(exchange, 's1').missing).toEqual([]);
    // The call consumes it.
    known.record(event('exchange', W1, { session: 's1' }));
    expect(known.assess(exchange, 's1').missing).toHaveLength(1);
  });

  it('licenses only the session that heard the yes, and never learns one from a journal', () => {
    const known = new KnownWorld(scenario, [], 'run-1');
    const exchange = { tool: 'exchange', args: W1 };
    answered(known, 's1', W1, true);
    expect(known.assess(exchange, 's2').missing).toHaveLength(1);
    expect(known.assess(exchange, 's1').missing).toEqual([]);
    // A restarted guard reads its journal: a journaled yes (or a forged one) grants nothing.
    const restarted = new KnownWorld(scenario, [], 'run-1');
    restarted.replay([event('confirm', { tool: 'exchange', args: W1 }, { approved: true, session: 's1' })]);
    expect(restarted.assess(exchange, 's1').missing).toHaveLength(1);
  });
});

describe('the tools file of oneway guard and the server tables', () => {
  it('refuses lookups and validate, which read tables the guard does not see, at their place', () => {
    const file = join(tempDir(), 'retail.yaml');
    writeFileSync(file, RETAIL_YAML);
    const r = loadGuardTools(file);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      "tools[1].lookups: lookups reads the server's tables, which oneway guard does not see: it cannot judge cancel_pending_order's calls by them",
      "tools[3].lookups: lookups reads the server's tables, which oneway guard does not see: it cannot judge pay_with_gift_card's calls by them",
      "tools[3].validate: validate reads the server's tables, which oneway guard does not see: it cannot judge pay_with_gift_card's calls by them",
      "tools[4].lookups: lookups reads the server's tables, which oneway guard does not see: it cannot judge refund_gift_card's calls by them",
      "tools[5].lookups: lookups reads the server's tables, which oneway guard does not see: it cannot judge update_address's calls by them",
    ]);
  });
});
