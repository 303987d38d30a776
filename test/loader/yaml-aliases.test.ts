/**
 * Alias bombs (issue 39, failure 11): a 1.7 MB scenario of 130,000 aliases of one scalar, each a
 * mapping key, kept the YAML parser comparing every key with every earlier one (minutes; 20,000
 * took 8.5 s). It is refused as soon as it is read, with a located problem and a hint, by the
 * loader, by `eval` (exit 2) and by `lint` (exit 1, its exit status for a file with errors), with
 * no stack trace; so are too many aliases in a config file or a price table, now read by the same
 * parser (before, without a line or column). Duplicate keys are still found, and a file
 * with a few aliases still loads. The timeouts only end a run of the old code, which never got here.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../harness/cli/common.ts';
import { main as evalMain } from '../../harness/cli/eval.ts';
import { main as lintMain } from '../../harness/cli/lint.ts';
import { UsageError } from '../../harness/core/errors.ts';
import { loadScenarioText } from '../../harness/engine/loader/load.ts';
import { MAX_ALIAS_COUNT, MAX_ALIASES, parseYamlSource } from '../../harness/engine/loader/yaml-source.ts';
import { parsePrices } from '../../harness/features/llm/prices.ts';
import { loadConfig } from '../../harness/features/request/config.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

const TINY = readFileSync(join(REPO_ROOT, 'test/fixtures/loader/tiny.yaml'), 'utf8');
/** 130,000 aliases of one scalar, each a key of one mapping: 1.7 MB, under the 2 MiB limit. */
const BOMB = `id: bomb\nnote: &x v\nkeys:\n${Array.from({ length: 130_000 }, (_, i) => `  *x : ${i}\n`).join('')}`;
/** Where the alias past the limit is: the first is on line 4, column 3. */
const PAST = { line: 4 + MAX_ALIASES, col: 3 };

let dir = '';
beforeAll(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'bomb.yaml'), BOMB);
});

describe('an alias bomb', () => {
  it('of 1.7 MB is refused at the alias past the limit, with the limit and a hint', () => {
    expect(BOMB.length).toBeGreaterThan(1_700_000);
    const r = parseYamlSource(BOMB, 'bomb.yaml');
    expect(r.ok ? [] : r.problems).toMatchObject([
      {
        code: 'yaml_limit',
        file: 'bomb.yaml',
        ...PAST,
        message: expect.stringContaining(`more than ${MAX_ALIASES} aliases`),
        hint: expect.stringContaining('write the repeated data out'),
      },
    ]);
  }, 60_000);

  it('of fewer aliases, expanded past the limit, is refused at its first alias', () => {
    const text = `note: &x v\nkeys:\n${'  - *x\n'.repeat(MAX_ALIAS_COUNT + 1)}`;
    const r = parseYamlSource(text, 'some.yaml');
    expect(r.ok ? [] : r.problems).toMatchObject([
      {
        code: 'yaml_limit',
        line: 3,
        col: 5,
        message: expect.stringContaining(`too many alias expansions (limit ${MAX_ALIAS_COUNT})`),
        hint: expect.stringContaining('write the repeated data out'),
      },
    ]);
  });

  it.each([
    ['eval', 2, evalMain, (f: string) => [`--scenario=${f}`, `--out=${tempDir()}`]],
    ['lint', 1, lintMain, (f: string) => [f]],
  ])(
    '%s refuses it with the located problem (exit %i), no stack trace',
    async (_name, code, main, args) => {
      const r = await runCli(main, args(join(dir, 'bomb.yaml')));
      expect(r.code).toBe(code);
      const out = r.stdout + r.stderr;
      expect(out).toContain(`bomb.yaml:${PAST.line}:${PAST.col}`);
      expect(out).toContain(`more than ${MAX_ALIASES} aliases`);
      expect(out).not.toMatch(/\n\s+at /);
    },
    60_000,
  );

  it('in a config file is refused with its file, line and column', async () => {
    const file = join(dir, 'oneway.config.yaml');
    writeFileSync(file, `trials: &n 1\nx:\n${'  - *n\n'.repeat(200)}`);
    const e = await loadConfig(file).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UsageError);
    expect((e as UsageError).message).toContain(`${file}:3:5: too many alias expansions`);
    expect((e as UsageError).hint).toContain('write the repeated data out');
  });

  it('in a price table is refused with its line and column', () => {
    const text = `m: &p { prompt_per_million: 1, completion_per_million: 2 }\n${Array.from({ length: 200 }, (_, i) => `m${i}: *p`).join('\n')}\n`;
    expect(() => parsePrices(text, 'prices.yaml')).toThrow(
      /^prices\.yaml:2:5: not YAML or JSON: too many alias expansions/,
    );
  });
});

describe('aliases in moderation', () => {
  it('a scenario that reuses a parameter schema through aliases loads', () => {
    const text = TINY.replace(
      'id: tiny',
      'id: tiny\nx-email: &email { type: string }\nx-again: *email\nx-more: [*email, *email]',
    );
    const r = parseYamlSource(text, 'ok.yaml');
    expect(r.ok).toBe(true);
    expect(r.ok && (r.value.value as Record<string, unknown>)['x-more']).toEqual([
      { type: 'string' },
      { type: 'string' },
    ]);
  });

  it('a key given twice is still refused at the second, with the duplicate-key hint', () => {
    const text = TINY.replace('id: tiny', 'id: tiny\nid: again');
    const r = loadScenarioText(text, 'dup.yaml');
    expect(r.ok ? [] : r.problems).toMatchObject([
      { code: 'yaml_syntax', line: 2, col: 1, hint: expect.stringContaining('each key may appear only once') },
    ]);
  });
});
