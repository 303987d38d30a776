/**
 * Secrets never reach records, results, reports or logs: a canary API key in
 * the environment, leaked on purpose by a planner into tool arguments, error
 * messages and its finish reason, appears in no file oneway writes.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import { redact, registerSecret, resetSecrets } from '../../harness/util/secrets.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

const CANARY = 'sk-canary-7f3a9c2e5b1d4068';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

afterEach(() => {
  delete process.env.ONEWAY_TEST_API_KEY;
  resetSecrets();
});

describe('secrets', () => {
  it('redacts a canary key from every file and stream, wherever a planner puts it', async () => {
    process.env.ONEWAY_TEST_API_KEY = CANARY;
    resetSecrets();
    const dir = tempDir();
    writeFileSync(
      join(dir, 'leaky.mjs'),
      `export default { name: 'leaky', create() { let t = 0; return { name: 'leaky', next() {
        t++;
        if (t === 1) return { type: 'call', call: { tool: 'verify_recipient', args: { email: 'x-' + process.env.ONEWAY_TEST_API_KEY } } };
        throw new Error('401 Incorrect API key provided: ' + process.env.ONEWAY_TEST_API_KEY);
      } }; } };\n`,
    );
    const out = tempDir();
    const summary = join(tempDir(), 'summary.md');
    writeFileSync(summary, '');
    const r = await runCli(main, [`--planner=${join(dir, 'leaky.mjs')}`, '--scenario=invoice-and-notify', '--reporter=table,markdown,junit,github', `--out=${out}`]);
    expect(r.code).toBe(0);
    const files = filesUnder(out);
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const f of files) expect(readFileSync(f, 'utf8')).not.toContain(CANARY);
    expect(r.stdout + r.stderr).not.toContain(CANARY);
    // The leak itself is visible, by name: the record says a key was there.
    expect(readFileSync(join(out, 'results.json'), 'utf8')).toContain('[redacted:ONEWAY_TEST_API_KEY]');
  });

  it('redacts registered values and leaves short or unrelated ones alone', () => {
    registerSecret('tok_abcdefgh12345', 'planner api_key');
    registerSecret('short', 'x');
    expect(redact('Authorization: Bearer tok_abcdefgh12345')).toBe('Authorization: Bearer [redacted:planner api_key]');
    expect(redact('a short word')).toBe('a short word');
  });
});
