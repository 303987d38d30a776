/**
 * What `oneway guard --tools=` accepts: the scenario file a team evaluated, or a tools block (what
 * `oneway import` writes), each checked by the scenario loader with positioned problems; and
 * `--facts`, rendered over the file's inputs and deployment.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../harness/cli/common.ts';
import { loadGuardTools, loadKnownFacts } from '../../harness/features/guard-proxy/tools-file.ts';
import { tempDir } from '../helpers/cli.ts';
import { MEMORY_TOOLS } from './helpers.ts';

describe('the tools file of oneway guard', () => {
  it('takes the scenario file an evaluation used, as it is', () => {
    const r = loadGuardTools(resolve(REPO_ROOT, 'scenarios/billing/invoice-and-notify.yaml'));
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.value.block).toBe(false);
      expect(r.value.scenario.id).toBe('invoice-and-notify');
      expect(r.value.scenario.tools.map((t) => t.name)).toContain('send_invoice_email');
    }
  });

  it('takes a tools block, and reports its problems at their line and column', () => {
    const r = loadGuardTools(MEMORY_TOOLS);
    expect(r.ok && r.value.block).toBe(true);
    const file = join(tempDir(), 'tools.yaml');
    writeFileSync(
      file,
      'tools:\n  - name: send\n    reversibility: irreversable\n    parameters: { type: object, properties: {} }\n',
    );
    const bad = loadGuardTools(file);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problems[0]).toMatchObject({ file, line: 3, path: 'tools[0].reversibility' });
  });

  it('reads --facts as a list or facts: [...], rendering the file inputs and deployment into them', () => {
    const dir = tempDir();
    const tools = join(dir, 'tools.yaml');
    writeFileSync(
      tools,
      'inputs: { customer: acme }\ndeployment: { region: eu }\ntools:\n  - name: look\n    reversibility: reversible\n    read_only: true\n',
    );
    const loaded = loadGuardTools(tools);
    if (!loaded.ok) throw new Error('tools do not load');
    const facts = join(dir, 'facts.yaml');
    writeFileSync(facts, '- customer_exists(customer={{inputs.customer}})\n- hosted(region={{deployment.region}})\n');
    expect(loadKnownFacts(facts, loaded.value.scenario)).toEqual({
      ok: true,
      value: ['customer_exists(customer=acme)', 'hosted(region=eu)'],
    });
    writeFileSync(facts, 'facts: [ready()]\nfacs: []\n');
    const extra = loadKnownFacts(facts, loaded.value.scenario);
    expect(!extra.ok && extra.problems[0]).toMatchObject({ line: 2, message: 'unknown key "facs" in a facts file' });
  });
});
