/**
 * Amplification and smaller holes (issue 15, item 8): an alias-expanded document is bounded;
 * record file names are one per planner name; eval:merge reads no record outside its directory;
 * `__proto__` (and `constructor`, `prototype`) keys are load problems, not silently dropped;
 * junit.xml stays well-formed XML whatever the text.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { main as evalMain } from '../../harness/cli/eval.ts';
import { main as merge } from '../../harness/cli/merge.ts';
import { REPO_ROOT } from '../../harness/cli/common.ts';
import { loadPlanText, loadScenarioText } from '../../harness/engine/loader/load.ts';
import { jsonSizeOver, MAX_EXPANDED_BYTES, parseYamlSource } from '../../harness/engine/loader/yaml-source.ts';
import { renderJunit, xmlEscape } from '../../harness/features/report/junit.ts';
import { recordPath, safeName } from '../../harness/engine/runner/evaluate.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { readResults } from '../helpers/results.ts';
import type { Results } from '../../harness/engine/results/types.ts';

const TINY = readFileSync(join(REPO_ROOT, 'test/fixtures/loader/tiny.yaml'), 'utf8');

describe('alias expansion is bounded', () => {
  it('refuses 99 aliases of a large anchor, at the first alias, with a hint', () => {
    const big = 'x'.repeat(200_000);
    const text = `id: x\nnote: &big "${big}"\n${Array.from({ length: 99 }, (_, i) => `n${i}: *big`).join('\n')}\n`;
    const r = parseYamlSource(text, 'amp.yaml');
    expect(r.ok ? [] : r.problems).toMatchObject([
      {
        code: 'yaml_limit',
        line: 3,
        col: 5,
        message: expect.stringContaining(`over ${MAX_EXPANDED_BYTES / 1024 / 1024} MiB`),
        hint: expect.stringContaining('fewer times'),
      },
    ]);
  });

  it('refuses an anchor that contains its own alias', () => {
    const r = parseYamlSource('a: &a [1, *a]\n', 'self.yaml');
    expect(r.ok ? [] : r.problems).toMatchObject([{ code: 'yaml_limit', line: 1, col: 11 }]);
  });

  it('allows aliases that stay small, and measures without expanding (the walk stops at the limit)', () => {
    expect(parseYamlSource('a: &a [1, 2]\nb: *a\nc: *a\n', 'ok.yaml').ok).toBe(true);
    const shared: unknown[] = ['x'.repeat(1000)];
    for (let i = 0; i < 40; i++) shared.push(shared.slice()); // 2^40 copies if expanded
    expect(jsonSizeOver(shared, 1_000_000)).toBe(true);
    expect(jsonSizeOver({ a: 'x'.repeat(10) }, 1000)).toBe(false);
  });
});

describe('reserved keys', () => {
  it.each([
    [
      'a __proto__ table',
      'world: { facts: [customer_exists(customer=acme)], tables: { __proto__: [ { a: 1 } ] } }',
      '__proto__',
    ],
    ['a __proto__ input', 'inputs: { email: bob@acme.example, __proto__: x }', '__proto__'],
    [
      'a constructor column',
      'world: { facts: [customer_exists(customer=acme)], tables: { t: [ { constructor: 1 } ] } }',
      'constructor',
    ],
    ['a prototype deployment key', 'inputs: { email: bob@acme.example }\ndeployment: { prototype: true }', 'prototype'],
  ])('%s is a load problem at the key, not dropped silently', (_name, line, key) => {
    const old = line.startsWith('world')
      ? 'world: { facts: [customer_exists(customer=acme)] }'
      : 'inputs: { email: bob@acme.example }';
    const text = TINY.replace(old, line);
    const r = loadScenarioText(text, 'proto.yaml');
    expect(r.ok).toBe(false);
    const p = r.ok ? undefined : r.problems.find((x) => x.message.includes(`"${key}"`));
    expect(p).toMatchObject({ code: 'schema', hint: expect.stringContaining('rename') });
    const lines = text.split('\n');
    expect(lines[(p?.line ?? 1) - 1]?.slice((p?.col ?? 1) - 1).startsWith(key)).toBe(true);
  });

  it('in a plan too', () => {
    const s = loadScenarioText(TINY, 'tiny.yaml');
    if (!s.ok) throw new Error('tiny does not load');
    const r = loadPlanText('- verify_recipient: { email: x, __proto__: y }\n- finish\n', 'p.yaml', s.value.scenario);
    expect(r.ok ? [] : r.problems).toMatchObject([
      { code: 'schema', line: 1, message: expect.stringContaining('__proto__') },
    ]);
  });
});

describe('record file names', () => {
  it('x/y and x y (and every other pair of names) get different files', () => {
    expect(safeName('x/y')).not.toBe(safeName('x y'));
    expect(safeName('x/y')).not.toBe(safeName('x_y'));
    expect(safeName('gated')).toBe('gated');
    expect(recordPath('s', 'planners/my.mjs', 1)).toBe('runs/s/planners~2Fmy.mjs-t1.jsonl');
    fc.assert(
      fc.property(
        fc.string({
          maxLength: 120,
          unit: fc.constantFrom('a', '/', ' ', '_', '~', '.', '-', 'é', '\ud800', '😀', 'Z'),
        }),
        fc.string({
          maxLength: 120,
          unit: fc.constantFrom('a', '/', ' ', '_', '~', '.', '-', 'é', '\ud800', '😀', 'Z'),
        }),
        (a, b) => {
          const [x, y] = [safeName(a), safeName(b)];
          expect(x).toMatch(/^[A-Za-z0-9._~-]{1,82}$/);
          if (a !== b) expect(x).not.toBe(y);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('two planners whose names differ only in punctuation keep both records', async () => {
    const dir = tempDir();
    const planner = (name: string) =>
      `export default { name: ${JSON.stringify(name)}, create() { return { name: ${JSON.stringify(name)}, next: () => ({ type: 'finish' }) }; } };\n`;
    writeFileSync(join(dir, 'a.mjs'), planner('x/y'));
    writeFileSync(join(dir, 'b.mjs'), planner('x y'));
    const out = tempDir();
    const r = await runCli(evalMain, [
      `--planner=${join(dir, 'a.mjs')},${join(dir, 'b.mjs')}`,
      '--scenario=invoice-and-notify',
      `--out=${out}`,
    ]);
    expect(r.code).toBe(0);
    const runs = readResults(out).runs;
    expect(new Set(runs.map((x) => x.record)).size).toBe(2);
    for (const run of runs)
      expect(readFileSync(join(out, run.record), 'utf8')).toContain(`"planner":${JSON.stringify(run.planner)}`);
  });
});

describe('eval:merge --reporter=html reads records only inside its directory', () => {
  it('refuses a record path that leads out (../, absolute, or a symbolic link)', async () => {
    const shard = tempDir();
    expect(
      (
        await runCli(evalMain, [
          '--planner=eager',
          '--scenario=invoice-and-notify,webhook-timeout-reconcile,purge-inactive-accounts',
          `--out=${shard}`,
        ])
      ).code,
    ).toBe(0);
    const secret = join(tempDir(), 'secret.jsonl');
    writeFileSync(secret, `${JSON.stringify({ type: 'run_start', note: 'CANARY-OUTSIDE' })}\n`);
    const results = readResults(shard);
    const [a, b, c] = results.runs;
    if (!a || !b || !c) throw new Error('three runs expected');
    a.record = `../../../../../../../../..${secret}`;
    b.record = secret;
    mkdirSync(join(shard, 'runs', 'evil'), { recursive: true });
    symlinkSync(secret, join(shard, 'runs', 'evil', 'link.jsonl'));
    c.record = 'runs/evil/link.jsonl';
    writeFileSync(join(shard, 'results.json'), JSON.stringify(results));

    const out = tempDir();
    const r = await runCli(merge, [`--out=${out}`, '--reporter=html', shard]);
    expect(r.code).toBe(0);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).not.toContain('CANARY-OUTSIDE');
    expect(html.split('leads outside the results directory').length - 1).toBeGreaterThanOrEqual(3);
  });
});

describe('junit.xml is well-formed whatever the text', () => {
  it('drops what XML 1.0 does not allow: controls, U+FFFE, U+FFFF, lone surrogates', () => {
    expect(xmlEscape('a\uFFFEb\uFFFFc\ud800d\udc00e\u0001f')).toBe('abcdef');
    expect(xmlEscape('😀 \t\n ok')).toBe('😀 \t\n ok');
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => {
        expect(XMLValidator.validate(`<a b="${xmlEscape(s)}">${xmlEscape(s)}</a>`)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('a planner named with U+FFFE is refused at load; a results file that holds one still gives a valid junit.xml', async () => {
    const dir = tempDir();
    const name = 'odd\uFFFE\uFFFFname\ud800';
    const planner = (n: string) =>
      `export default { name: ${JSON.stringify(n)}, create() { return { name: ${JSON.stringify(n)}, next: () => ({ type: 'finish' }) }; } };\n`;
    writeFileSync(join(dir, 'p.mjs'), planner(name));
    const args = (out: string) => [
      `--planner=${join(dir, 'p.mjs')}`,
      '--scenario=invoice-and-notify',
      '--reporter=junit',
      `--out=${out}`,
    ];
    const refused = await runCli(evalMain, args(tempDir()));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('is not printable ASCII');
    // Names written by hand into results.json (or by an older oneway) still make well-formed XML.
    writeFileSync(join(dir, 'p.mjs'), planner('odd'));
    const out = tempDir();
    expect((await runCli(evalMain, args(out))).code).toBe(0);
    expect(XMLValidator.validate(readFileSync(join(out, 'junit.xml'), 'utf8'))).toBe(true);
    const forged = JSON.parse(JSON.stringify(readResults(out)).replaceAll('"odd"', JSON.stringify(name))) as Results;
    expect(forged.runs[0]?.planner).toBe(name);
    expect(XMLValidator.validate(renderJunit(forged))).toBe(true);
  });
});
