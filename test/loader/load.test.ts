import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../harness/loader/load.ts';
import { MAX_SOURCE_BYTES } from '../../harness/loader/yaml-source.ts';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/loader');
const dir = mkdtempSync(join(tmpdir(), 'oneway-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loading a scenario file', () => {
  it('returns the scenario with defaults applied and a locator into the file', () => {
    const r = loadScenarioFile(join(FIXTURES, 'tiny.yaml'));
    if (!r.ok) throw new Error(r.problems.map((p) => p.message).join('\n'));
    expect(r.value.scenario).toMatchObject({ id: 'tiny', max_steps: 30, forbidden: [], deployment: {} });
    expect(r.value.scenario.tools[1]).toMatchObject({ kind: 'action', read_only: false, latency_ms: 100, faults: [] });
    expect(r.value.locate(['goal', 0])).toEqual({ line: 19, col: 8 });
  });

  it('reports a missing file as a problem, not an exception', () => {
    const file = join(dir, 'nope.yaml');
    expect(loadScenarioFile(file)).toMatchObject({ ok: false, problems: [{ code: 'file', file, message: 'the file does not exist' }] });
  });

  it('reports a directory given as a file', () => {
    expect(loadScenarioFile(dir)).toMatchObject({ ok: false, problems: [{ code: 'file', message: expect.stringContaining('directory') }] });
  });

  // root reads anything, so permissions cannot make a file unreadable there.
  it.skipIf(process.getuid?.() === 0)('reports an unreadable file', () => {
    const file = join(dir, 'locked.yaml');
    writeFileSync(file, 'id: x\n');
    chmodSync(file, 0o000);
    expect(loadScenarioFile(file)).toMatchObject({ ok: false, problems: [{ code: 'file', message: expect.stringContaining('not readable') }] });
  });

  it('refuses a file over 2 MiB quickly, from its size alone', () => {
    const file = join(dir, 'huge.yaml');
    writeFileSync(file, `# ${'x'.repeat(MAX_SOURCE_BYTES)}\n`);
    const started = Date.now();
    const r = loadScenarioFile(file);
    expect(Date.now() - started).toBeLessThan(500);
    expect(r).toMatchObject({ ok: false, problems: [{ code: 'yaml_limit', file }] });
  });
});
