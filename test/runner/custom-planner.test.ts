import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import { parseCheckOutput } from '../../harness/engine/io/syntax-error.ts';
import { loadPlanner } from '../../harness/engine/runner/planners.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

const TS_PLANNER = `
interface View { turn: number; inputs: Record<string, unknown> }
type Decision = { type: 'call'; call: { tool: string; args: Record<string, unknown> } } | { type: 'finish' };
const planner = {
  name: 'from-ts-file',
  next(view: View): Decision {
    return view.turn === 1 ? { type: 'call', call: { tool: 'verify_recipient', args: { email: String(view.inputs.email) } } } : { type: 'finish' };
  },
};
export default planner;
`;

describe('bring your own planner', () => {
  it('loads a planner from a TypeScript file outside the repo and evaluates it like a built-in', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'mine.ts'), TS_PLANNER);
    const out = tempDir();
    const r = await runCli(main, [
      `--planner=${join(dir, 'mine.ts')}`,
      '--scenario=invoice-and-notify',
      `--out=${out}`,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('from-ts-file');
  });

  it('loads the example planner through the package name import', async () => {
    const h = await loadPlanner('./examples/planners/verify-first.ts', process.cwd());
    expect(h.name).toBe('verify-first');
    const p = h.create({ seed: 1, trial: 1, scenario: 'x', options: {} });
    expect(typeof p.next).toBe('function');
  });

  it('explains what to export when a module exports no planner', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'empty.mjs'), 'export const answer = 42;\n');
    const r = await runCli(main, [`--planner=${join(dir, 'empty.mjs')}`, `--out=${tempDir()}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('does not export a planner');
    expect(r.stderr).toContain('docs/planner-api.md');
  });

  it('reports a module that fails to load without a stack trace', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'broken.mjs'), 'export default {{;\n');
    const r = await runCli(main, [`--planner=${join(dir, 'broken.mjs')}`, `--out=${tempDir()}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('failed to load');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('says where a planner file has its syntax error: file, line and column', async () => {
    const dir = tempDir();
    // Node's import of such a module throws "SyntaxError: Unexpected token 'return'", and nothing more.
    const bad =
      'export default {\n  name: "bad",\n  create() {\n\treturn { name: "bad", next() { return } return; };\n  },\n};\n';
    writeFileSync(join(dir, 'bad.mjs'), bad);
    writeFileSync(join(dir, 'bad.ts'), bad);
    for (const [file, expected] of [
      // The column counts the tab as one character, from 1: the second `return` of line 4.
      ['bad.mjs', `${join(dir, 'bad.mjs')}:4:42: SyntaxError: Unexpected token 'return'`],
      // TypeScript is compiled by esbuild first, which says where too (its column counts from 0).
      ['bad.ts', `${join(dir, 'bad.ts')}:4:42: Expected "}" but found "return"`],
    ] as const) {
      const r = await runCli(main, [`--planner=${join(dir, file)}`, `--out=${tempDir()}`]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`planner module ${join(dir, file)} failed to load: ${expected}`);
      expect(r.stderr).toContain('check that the file compiles');
    }
  });

  it("reads node --check's report of a syntax error, and nothing else", () => {
    const report =
      "/p/x.mjs:2\n\t  foo bar\n\t  ^^^\n\nSyntaxError: Unexpected identifier 'bar'\n    at checkSyntax (node:internal)\n";
    expect(parseCheckOutput(report)).toEqual({
      file: '/p/x.mjs',
      line: 2,
      column: 4,
      message: "SyntaxError: Unexpected identifier 'bar'",
    });
    expect(parseCheckOutput('node: bad option: --check\n')).toBeUndefined();
  });

  it('passes --planner-opt values to the planner', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'opts.mjs'),
      `export default { name: 'opts', create(ctx) { return { name: 'opts', next() { if (ctx.options.fail === 'yes') throw new Error('asked to fail'); return { type: 'finish' }; } }; } };\n`,
    );
    const out = tempDir();
    await runCli(main, [
      `--planner=${join(dir, 'opts.mjs')}`,
      '--planner-opt=fail=yes',
      '--scenario=invoice-and-notify',
      `--out=${out}`,
    ]);
    const { readFileSync } = await import('node:fs');
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { runs: { error: string }[] };
    expect(results.runs[0]?.error).toBe('planner threw: asked to fail');
  });
});
