/**
 * Secrets never reach records, results, reports or logs: a canary API key in
 * the environment, leaked on purpose by a planner into tool arguments, error
 * messages and its finish reason, appears in no file oneway writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import { redact, redactingStream, registerSecret, resetSecrets, secretForms } from '../../harness/util/secrets.ts';
import { filesUnder, runCli, tempDir } from '../helpers/cli.ts';

const CANARY = 'sk-canary-7f3a9c2e5b1d4068';

/**
 * eval of invoice-and-notify with `reporters` and a planner that leaks ONEWAY_TEST_API_KEY: its first
 * call's arguments are `args`, then it throws `error` (both JavaScript, reading the key from the environment).
 */
async function evalLeaky(args: string, error: string, reporters: string) {
  const dir = tempDir();
  writeFileSync(
    join(dir, 'leaky.mjs'),
    `export default { name: 'leaky', create() { let t = 0; return { name: 'leaky', next() {
        t++;
        if (t === 1) return { type: 'call', call: { tool: 'verify_recipient', args: ${args} } };
        throw new Error(${error});
      } }; } };\n`,
  );
  const out = tempDir();
  const r = await runCli(
    main,
    [
      `--planner=${join(dir, 'leaky.mjs')}`,
      // A planner file's process gets no environment variable unless passed on.
      '--planner-env=ONEWAY_TEST_API_KEY',
      '--scenario=invoice-and-notify',
      `--reporter=${reporters}`,
      `--out=${out}`,
    ],
    process.cwd(),
    { NO_COLOR: '1', ONEWAY_TEST_API_KEY: process.env.ONEWAY_TEST_API_KEY },
  );
  return { r, out };
}

afterEach(() => {
  delete process.env.ONEWAY_TEST_API_KEY;
  resetSecrets();
});

describe('secrets', () => {
  it('redacts a canary key from every file and stream, wherever a planner puts it', async () => {
    process.env.ONEWAY_TEST_API_KEY = CANARY;
    resetSecrets();
    const summary = join(tempDir(), 'summary.md');
    writeFileSync(summary, '');
    const { r, out } = await evalLeaky(
      "{ email: 'x-' + process.env.ONEWAY_TEST_API_KEY }",
      "'401 Incorrect API key provided: ' + process.env.ONEWAY_TEST_API_KEY",
      'table,markdown,junit,github',
    );
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

  it('redacts a key with " \ < & in it from records, results and report.html, in every escaped form', async () => {
    const key = 'sk-"quoted"\\back<&>-7f3a9c2e';
    process.env.ONEWAY_TEST_API_KEY = key;
    resetSecrets();
    const { r, out } = await evalLeaky(
      '{ email: process.env.ONEWAY_TEST_API_KEY, note: JSON.stringify({ k: process.env.ONEWAY_TEST_API_KEY }) }',
      "'401 key ' + process.env.ONEWAY_TEST_API_KEY",
      'table,markdown,junit,html',
    );
    expect(r.code).toBe(0);
    const forms = secretForms(key);
    expect(forms.length).toBeGreaterThan(4); // raw, JSON once and twice, HTML, <script> JSON
    for (const f of filesUnder(out)) {
      const text = readFileSync(f, 'utf8');
      for (const form of forms) expect(text, `${f} holds ${form}`).not.toContain(form);
      expect(text).not.toContain('7f3a9c2e');
    }
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('[redacted:ONEWAY_TEST_API_KEY]');
  });

  it('redacts a stream written in pieces, a secret split across them included', () => {
    registerSecret('tok_abcdefgh12345', 'k');
    const text = `a tok_abcdefgh12345 b "tok_abcdefgh12345" ${'x'.repeat(100)} tok_abcdefgh12345`;
    for (const size of [1, 2, 3, 7, 16, 1000]) {
      let got = '';
      const s = redactingStream((t) => {
        expect(t).not.toContain('tok_abcdefgh12345');
        got += t;
      });
      for (let i = 0; i < text.length; i += size) s.write(text.slice(i, i + size));
      s.end();
      expect(got).toBe(redact(text));
      expect(got).not.toContain('abcdefgh');
    }
  });

  it('redacts a secret base64-encoded (at any offset in a longer text, URL-safe too), hex, URL-encoded and reversed', () => {
    const key = 'sk-live/+?&= ~ "9f8e7d6c5b4a"';
    registerSecret(key, 'k');
    const bytes = Buffer.from(key);
    const encoded = [
      bytes.toString('base64'),
      bytes.toString('base64url'),
      ...['a', 'ab', 'Bearer ', 'user:'].flatMap((pre) => {
        const b = Buffer.from(`${pre}${key}!`);
        return [b.toString('base64'), b.toString('base64url')];
      }),
      bytes.toString('hex'),
      bytes.toString('hex').toUpperCase(),
      encodeURIComponent(key),
      encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
      new URLSearchParams({ q: key }).toString(),
      [...key].reverse().join(''),
    ];
    for (const text of encoded) {
      const out = redact(`before ${text} after`);
      expect(out, text).toContain('[redacted:k]');
      // What is left of the encoding cannot be decoded back to the secret, nor to most of it.
      for (const kept of out.split('[redacted:k]')) {
        expect(Buffer.from(kept.replace(/^before |after$/g, '').trim(), 'base64').toString()).not.toContain('9f8e7d');
        expect(kept).not.toContain(Buffer.from('9f8e7d').toString('hex'));
      }
    }
  });

  it('redacts a secret a planner encodes before leaking it, from every file of an evaluation', async () => {
    process.env.ONEWAY_TEST_API_KEY = CANARY;
    resetSecrets();
    const k = 'process.env.ONEWAY_TEST_API_KEY';
    const { r, out } = await evalLeaky(
      `{ email: Buffer.from(${k}).toString('base64'), b64url: Buffer.from('token=' + ${k}).toString('base64url'), hex: Buffer.from(${k}).toString('hex'), url: encodeURIComponent('k=' + ${k}), reversed: [...${k}].reverse().join('') }`,
      `'leaked ' + Buffer.from(${k}).toString('base64')`,
      'table,markdown,junit,html',
    );
    expect(r.code).toBe(0);
    const forms = secretForms(CANARY);
    for (const f of filesUnder(out)) {
      const text = readFileSync(f, 'utf8');
      for (const form of forms) expect(text, `${f} holds ${form}`).not.toContain(form);
    }
    expect(readFileSync(join(out, 'results.json'), 'utf8')).toContain('[redacted:ONEWAY_TEST_API_KEY]');
  });
});
