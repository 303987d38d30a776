/**
 * `npm run check:mocks` (scripts/check-mocks.mjs; CI runs it on the real tree) must be able to fail:
 * a vi.mock or vi.doMock in a file of a project that shares modules is named with its line and both
 * ways out; the same call in an isolated project, or in a comment, is not.
 */
import { describe, expect, it } from 'vitest';
import { mockCalls, mockProblems } from '../../scripts/check-mocks.mjs';

/** `vi.<fn>(<arg>)`, written so that this file itself calls neither (the check reads it too). */
const vi = (fn: string, arg: string) => ['vi', `${fn}(${arg})`].join('.');
const MOCKING = [
  "import { vi } from 'vitest';",
  `// ${vi('mock', "'x'")} in a comment is not a call`,
  ` * as ${vi('doMock', "'y'")} in a doc comment is not either`,
  `${vi('mock', "'../../harness/engine/runner/evaluate.ts', async () => ({})")};`,
  `it("x", async () => { ${vi('doMock', "'node:fs'")}; });`,
  'vi.mocked(engine.evaluate).mock.calls;',
].join('\n');

describe('the module-mock check', () => {
  it('finds vi.mock and vi.doMock calls by line, not comments or vi.mocked', () => {
    expect(mockCalls(MOCKING)).toEqual([4, 5]);
  });

  it('fails on a mock in a project that shares modules, saying where and what to do', () => {
    const problems = mockProblems([
      { file: 'test/cli/settings.test.ts', project: 'integration', isolate: false, text: MOCKING },
    ]);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^test\/cli\/settings\.test\.ts:4: vi\.mock in the "integration" project/);
    expect(problems[0]).toContain('isolate: false');
    expect(problems[0]).toContain('as a parameter the test passes');
    expect(problems[0]).toContain('ISOLATED in vitest.config.ts');
    expect(problems[1]).toMatch(/^test\/cli\/settings\.test\.ts:5:/);
  });

  it('lets a mock be in an isolated project, and a file without one anywhere', () => {
    expect(
      mockProblems([
        { file: 'test/cli/settings.test.ts', project: 'isolated', isolate: true, text: MOCKING },
        {
          file: 'test/loader/load.test.ts',
          project: 'unit',
          isolate: false,
          text: "import { vi } from 'vitest';\nvi.stubEnv('A', '1');",
        },
      ]),
    ).toEqual([]);
  });
});
