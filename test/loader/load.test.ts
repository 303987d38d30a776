import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenarioFile, readSource } from '../../harness/engine/loader/load.ts';
import { MAX_SOURCE_BYTES } from '../../harness/engine/loader/yaml-source.ts';

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
    expect(loadScenarioFile(file)).toMatchObject({
      ok: false,
      problems: [{ code: 'file', file, message: 'the file does not exist' }],
    });
  });

  it('reports a directory given as a file', () => {
    expect(loadScenarioFile(dir)).toMatchObject({
      ok: false,
      problems: [{ code: 'file', message: expect.stringContaining('directory') }],
    });
  });

  it('reports an unreadable file', () => {
    const file = join(dir, 'locked.yaml');
    writeFileSync(file, 'id: x\n');
    // Permissions cannot make a file unreadable for root (containers and CI often run as root), so
    // the loader is given a reader that fails with EACCES, as the operating system would.
    const denied = (path: string): string => {
      throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), {
        errno: -13,
        code: 'EACCES',
        syscall: 'open',
        path,
      });
    };
    expect(readSource(file, denied)).toMatchObject({
      ok: false,
      problems: [{ code: 'file', file, line: 1, col: 1, message: 'the file is not readable (permission denied)' }],
    });
  });

  it('refuses a file over 2 MiB quickly, from its size alone', () => {
    const file = join(dir, 'huge.yaml');
    // 3 MiB of bytes that are not UTF-8: read as text, each would become a 3-byte U+FFFD (9 MiB). The
    // problem says 3.0 MiB, so the size came from the file system, not from reading the file.
    writeFileSync(file, Buffer.alloc(MAX_SOURCE_BYTES + 1024 * 1024, 0xff));
    const r = loadScenarioFile(file);
    expect(r).toMatchObject({
      ok: false,
      problems: [{ code: 'yaml_limit', file, message: expect.stringContaining('3.0 MiB') }],
    });
  });
});
