import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decide, type Situation } from '../../harness/engine/guard/decide.ts';
import { DEFAULT_POLICY, loadPolicyFile, type Policy } from '../../harness/engine/guard/policy.ts';
import { tempDir } from '../helpers/cli.ts';

const ready: Situation = {
  tool: 'send_email',
  class: 'irreversible',
  missing: [],
  alongside: 0,
  scope: 'batch',
  retried: () => undefined,
  duplicated: () => undefined,
};
const policy = (p: Partial<Policy>): Policy => ({ ...DEFAULT_POLICY, ...p });

describe("the guard's one decision", () => {
  it('checks, in order: policy, company, an open ambiguous failure, a duplicate, preconditions, then asks a human', () => {
    const strict = policy({ irreversible: 'approval' });
    const missing = ['recipient_verified(email=bob@acme.example)'];
    const open = { step: 4, identity: 'x', key: undefined };
    expect(decide({ ...ready, missing, alongside: 2, retried: () => open }, strict)).toEqual({
      pass: false,
      reason: 'a irreversible call must be alone in its batch (this batch has 3 calls)',
      missing: [],
    });
    expect(decide({ ...ready, missing, retried: () => open }, strict)).toMatchObject({
      reason: expect.stringMatching(/^unreconciled retry: the same call failed ambiguously at step 4/),
    });
    // Nobody is asked about a duplicate that would be refused anyway.
    expect(decide({ ...ready, missing, duplicated: () => 2 }, strict)).toEqual({
      pass: false,
      reason: `missing preconditions: ${missing[0]}`,
      missing,
    });
    expect(decide(ready, strict)).toEqual({ ask: true });
    expect(decide({ ...ready, approval: { approved: true } }, strict)).toEqual({ pass: true });
    expect(decide({ ...ready, approval: { approved: false, by: 'approve-cmd exited 1' } }, strict)).toEqual({
      pass: false,
      reason: 'approval for send_email was denied (approve-cmd exited 1)',
      missing: [],
    });
  });

  it('holds a duplicate of a call that applied for approval, under gated as under approval, and says so when denied', () => {
    const dup = { ...ready, duplicated: () => 3 };
    expect(decide(dup, DEFAULT_POLICY)).toEqual({ ask: true, repeats: 3 });
    expect(decide({ ...dup, approval: { approved: true, by: 'approved by --approve-cmd' } }, DEFAULT_POLICY)).toEqual({
      pass: true,
    });
    expect(decide({ ...dup, approval: { approved: false, by: 'nobody to ask' } }, DEFAULT_POLICY)).toEqual({
      pass: false,
      reason: 'duplicate: the same call applied at step 3, and approval to repeat it was denied (nobody to ask)',
      missing: [],
    });
    // auto lets everything through, duplicates too.
    expect(decide(dup, policy({ irreversible: 'auto' }))).toEqual({ pass: true });
  });

  it('asks for the retry check only when the rule looks at it', () => {
    let asked = 0;
    const retried = () => (asked++, undefined);
    decide({ ...ready, class: 'reversible', retried }, DEFAULT_POLICY);
    decide({ ...ready, alongside: 1, retried }, DEFAULT_POLICY);
    expect(asked).toBe(0);
    decide({ ...ready, missing: ['x()'], retried }, DEFAULT_POLICY);
    expect(asked).toBe(1);
  });

  it('words the calls alongside for a session, and blocks undeclared tools unless the policy says otherwise', () => {
    expect(decide({ ...ready, scope: 'session', alongside: 1 }, DEFAULT_POLICY)).toMatchObject({
      reason: 'an irreversible call must be alone: 1 other call of this session was made with it or is in flight',
    });
    const undeclared = { ...ready, tool: 'read_graph', class: null };
    expect(decide(undeclared, DEFAULT_POLICY)).toMatchObject({
      pass: false,
      reason: 'read_graph is not declared in the tools file, and undeclared tools are blocked by policy',
    });
    expect(decide(undeclared, policy({ undeclared: 'auto' }))).toEqual({ pass: true });
    expect(decide({ ...undeclared, alongside: 1 }, policy({ undeclared: 'gated' }))).toMatchObject({
      reason: expect.stringMatching(/^an undeclared call must be alone/),
    });
  });

  it('reads `undeclared` from a policy file for the proxy, and refuses all but block for an evaluation', () => {
    const file = join(tempDir(), 'policy.yaml');
    writeFileSync(file, 'irreversible: approval\nundeclared: auto\n');
    expect(loadPolicyFile(file, { production: true })).toMatchObject({ ok: true, value: { undeclared: 'auto' } });
    const evalPolicy = loadPolicyFile(file);
    expect(evalPolicy.ok).toBe(false);
    if (!evalPolicy.ok)
      expect(evalPolicy.problems[0]).toMatchObject({
        file,
        line: 2,
        path: 'undeclared',
        message: expect.stringContaining('applies to oneway guard only'),
      });
    writeFileSync(file, 'undeclared: block\n');
    expect(loadPolicyFile(file)).toMatchObject({ ok: true, value: { undeclared: 'block' } });
  });
});
