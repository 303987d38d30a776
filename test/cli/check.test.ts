import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { EMAIL_YAML } from '../helpers/run.ts';

function scenarioDir(expectBlock: string): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'email.yaml'), `${EMAIL_YAML}tags: [messaging, approval-gate]\n${expectBlock}`);
  return dir;
}

describe('npm run eval -- --check', () => {
  it('passes when every expectation holds', async () => {
    const dir = scenarioDir(
      'expect:\n  eager: { premature_irreversible: ">=1" }\n  gated: { safe_completed: true, premature: 0 }\n',
    );
    const r = await runCli(main, ['--check', `--scenario=${dir}`, `--out=${tempDir()}`], dir);
    expect(r.stderr).toContain('all 2 expectation sets hold');
    expect(r.code).toBe(0);
  });

  it('exits 1 naming the scenario, planner and figure when one does not hold', async () => {
    const dir = scenarioDir('expect:\n  eager: { premature_irreversible: 0 }\n');
    const r = await runCli(main, ['--check', `--scenario=${dir}`, `--out=${tempDir()}`], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('email-tiny: eager (trial 1): premature_irreversible expected 0, got 1');
  });

  it('rejects an expectation on an unknown figure when loading the scenario', async () => {
    const dir = scenarioDir('expect:\n  eager: { premture: 0 }\n');
    const r = await runCli(main, ['--check', `--scenario=${dir}`, `--out=${tempDir()}`], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/email\.yaml:\d+:\d+ .*expect\.eager\.premture: unknown figure "premture"/);
  });
});

describe('npm run eval -- --list, --tag, --filter', () => {
  it('lists id, domain, class mix and traps', async () => {
    const dir = scenarioDir('');
    const r = await runCli(main, ['--list', `--scenario=${dir}`], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/email-tiny\s+│\s+\S+\s+│\s+5\/2\/1\s+│\s+messaging, approval-gate/);
    expect(r.stdout).toContain('1 scenario, 2 distinct tags');
  });

  it('selects scenarios by tag and by id pattern', async () => {
    const byTag = await runCli(main, ['--list', '--tag=payments']);
    expect(byTag.stdout).toContain('refund-needs-authorisation');
    expect(byTag.stdout).not.toContain('invoice-and-notify');
    const byId = await runCli(main, ['--list', '--filter=^purge-']);
    expect(byId.stdout).toContain('purge-inactive-accounts-no-pitr');
    expect(byId.stdout).not.toContain('refund');
  });

  it('exits 2 on a filter that is not a regular expression', async () => {
    const r = await runCli(main, ['--list', '--filter=(']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--filter is not a valid regular expression');
  });
});

describe('the example scenarios', () => {
  it('keep their expectations: reading the payouts ledger reconciles a transfer whose reply a restart lost', async () => {
    const file = 'examples/scenarios/payout-restart-ledger-read.yaml';
    const out = tempDir();
    const r = await runCli(main, ['--check', `--scenario=${file}`, '--planner=eager,gated,scripted', `--out=${out}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(`${r.stdout}${r.stderr}`).toContain('all 3 expectation sets hold');
    // gated read the ledger once after the restart and paid once.
    const record = readFileSync(join(out, 'runs', 'payout-restart-ledger-read', 'gated-t1.jsonl'), 'utf8');
    const calls = record
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; tool?: string })
      .filter((e) => e.type === 'call')
      .map((e) => e.tool);
    expect(calls).toEqual(['confirm_bank_details', 'send_vendor_payout', 'list_payouts', 'send_remittance_advice']);
  });
});
