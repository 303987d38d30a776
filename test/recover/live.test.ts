/**
 * recover --apply against a real server (features/recover/live.ts), as a function of the checklist:
 * newest first, compensable effects only with --approve, nothing issued for what has no
 * compensation or may not have happened, and everything left counted.
 */
import { describe, expect, it } from 'vitest';
import { buildChecklist } from '../../harness/features/recover/checklist.ts';
import { applyToServer } from '../../harness/features/recover/live.ts';
import { call, EMAIL_YAML, recordOf, runDecisions, scenarioFrom } from '../helpers/run.ts';

const scenario = scenarioFrom(
  EMAIL_YAML.replace(
    '    latency_ms: 120',
    '    latency_ms: 120\n    faults: [ { on_call: 2, status: 504, applied: false } ]',
  ),
);

async function checklist() {
  const r = await runDecisions(scenario, [
    call('create_invoice', { customer: 'acme', amount: 5 }), // compensable: void_invoice, with approval
    call('verify_recipient', { email: 'bob@acme.example' }),
    call('request_approval', { action: 'send_email' }),
    call('send_email', { to: 'bob@acme.example' }), // irreversible: respond
    call('send_email', { to: 'bob@acme.example' }), // 504: uncertain
  ]);
  return buildChecklist(recordOf(r.events), scenario);
}

describe('recover --apply against a server', () => {
  it('issues nothing that needs approval without --approve, and says what is left', async () => {
    const issued: string[] = [];
    const report = await applyToServer(
      await checklist(),
      async (op, args) => (issued.push(`${op} ${JSON.stringify(args)}`), { ok: true, step: 99 }),
      { approve: false },
      'server',
    );
    expect(issued).toEqual([]);
    expect(report.compensations.map((c) => [c.step, c.tool, c.disposition])).toEqual([
      [5, 'send_email', 'uncertain'],
      [4, 'send_email', 'irreversible'],
      [1, 'create_invoice', 'unapproved'],
    ]);
    expect(report.left).toBe(3);
  });

  it('issues a compensation that needs approval with --approve, and counts one that failed', async () => {
    const list = await checklist();
    const ok = await applyToServer(list, async () => ({ ok: true, step: 7 }), { approve: true }, 'server');
    expect(ok.compensations.find((c) => c.step === 1)).toMatchObject({
      disposition: 'compensated',
      operation: 'void_invoice',
      issued_at: 7,
    });
    expect(ok.left).toBe(2);
    const failed = await applyToServer(
      list,
      async () => ({ ok: false, step: 8, error: 'invoice is locked' }),
      { approve: true },
      'server',
    );
    expect(failed.compensations.find((c) => c.step === 1)).toMatchObject({
      disposition: 'compensation_failed',
      error: 'invoice is locked',
    });
    expect(failed.left).toBe(3);
  });
});
