/**
 * The layer rules in .dependency-cruiser.cjs (npm run check:layers; CI runs it on the real tree)
 * must be able to fail: each rule is run here on a small tree that breaks it, and on one that keeps it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as {
  forbidden: { name: string }[];
  options: Record<string, unknown>;
};
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The rules broken by a tree of files (path → source), as `rule: from → to`. */
async function violations(files: Record<string, string>): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), 'oneway-layers-'));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  // The repository's own exclusions (node_modules, dist) are paths of the real tree, not of this one.
  const { doNotFollow: _d, exclude: _e, ...options } = config.options;
  const result = await cruise(
    ['harness', 'planners'].filter((d) => Object.keys(files).some((f) => f.startsWith(`${d}/`))),
    {
      ...options,
      baseDir: root,
      validate: true,
      ruleSet: { forbidden: config.forbidden },
    } as Parameters<typeof cruise>[1],
  );
  const out = result.output as ICruiseResult;
  return out.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
}

describe('the layer rules', () => {
  it('accept imports that go down the layers', async () => {
    expect(
      await violations({
        'harness/util/sort.ts': 'export const sort = 1;\n',
        'harness/core/record.ts': "import { sort } from '../util/sort.ts';\nexport const record = sort;\n",
        'harness/domain/rules/retries.ts': "import type { } from '../../core/record.ts';\nexport const r = 1;\n",
        'harness/engine/scoring/metrics.ts':
          "import { r } from '../../domain/rules/retries.ts';\nexport const m = r;\n",
        'harness/features/report/table.ts':
          "import { m } from '../../engine/scoring/metrics.ts';\nexport const t = m;\n",
        'harness/cli/eval.ts': "import { t } from '../features/report/table.ts';\nexport const e = t;\n",
        'planners/gated.ts': "import { r } from '../harness/domain/rules/retries.ts';\nexport default r;\n",
      }),
    ).toEqual([]);
  });

  it('refuse a contract that imports the engine, type-only imports included', async () => {
    expect(
      await violations({
        'harness/engine/scoring/metrics.ts': 'export type RunMetrics = { n: number };\n',
        'harness/core/record.ts':
          "import type { RunMetrics } from '../engine/scoring/metrics.ts';\nexport type E = RunMetrics;\n",
      }),
    ).toEqual(['core-imports-only-util: harness/core/record.ts → harness/engine/scoring/metrics.ts']);
  });

  it('refuse a cycle, even inside one layer and through types only', async () => {
    const found = await violations({
      'harness/engine/results/types.ts': "import type { C } from '../scoring/compare.ts';\nexport type R = C;\n",
      'harness/engine/scoring/compare.ts':
        "import type { R } from '../results/types.ts';\nexport type C = { r?: R };\n",
    });
    // Reported once, from whichever end the cruise reaches first.
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^no-circular: harness\/engine\/(results\/types|scoring\/compare)\.ts → /);
  });

  it('refuse the engine importing a bundled planner, and a planner reaching the sandbox', async () => {
    expect(
      await violations({
        'planners/scripted.ts': 'export default {};\n',
        'harness/engine/sandbox/sandbox.ts': 'export class Sandbox {}\n',
        'harness/features/fuzz/run-plan.ts':
          "import scripted from '../../../planners/scripted.ts';\nexport const p = scripted;\n",
        'planners/sneaky.ts':
          "import { Sandbox } from '../harness/engine/sandbox/sandbox.ts';\nexport default Sandbox;\n",
      }),
    ).toEqual([
      'harness-does-not-import-bundled-planners: harness/features/fuzz/run-plan.ts → planners/scripted.ts',
      'planners-see-the-planner-api-only: planners/sneaky.ts → harness/engine/sandbox/sandbox.ts',
    ]);
  });
});
