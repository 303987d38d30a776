/**
 * Terminal and CI injection: scenario, planner and agent text reaches the
 * console escaped. No control character (a clipboard write, a screen clear, a
 * CSI) gets through, untrusted text never starts a line, and no output line
 * starts a GitHub Actions workflow command except the annotations the github
 * reporter writes itself, whose messages and properties are escaped.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as evalMain } from '../../harness/cli/eval.ts';
import { main as lintMain } from '../../harness/cli/lint.ts';
import { main as recoverMain } from '../../harness/cli/recover.ts';
import { formatProblem } from '../../harness/core/errors.ts';
import { faultOf } from '../../harness/features/fuzz/fault.ts';
import { reportFailure } from '../../harness/features/fuzz/report.ts';
import { annotation } from '../../harness/features/report/github.ts';
import { makeChalk } from '../../harness/features/report/color.ts';
import type { Results } from '../../harness/engine/results/types.ts';
import { neutraliseCommands, terminalSafeDeep, terminalText } from '../../harness/util/terminal-text.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

const CLIPBOARD = '\x1b]52;c;cHduZWQ=\x07';
const CLEAR = '\x1b[2J';
const PAYLOAD = `\n::error file=x::pwned ::add-mask::secret ${CLIPBOARD} ${CLEAR} \u009b31m`;
/** How the payload reads once escaped. */
const SHOWN = '\\n::error file=x::pwned ::add-mask::secret \\x1b]52;c;cHduZWQ=\\x07 \\x1b[2J \\u009b31m';

/** A YAML double-quoted string holding `s`, every control character as an escape (YAML forbids them raw). */
const yamlString = (s: string) =>
  JSON.stringify(s).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const scenarioYaml = (id: string, extraToolKey = '') => `
id: ${id}
title: ${yamlString(`Evil${PAYLOAD}`)}
description: ${yamlString(`::add-mask::secret${PAYLOAD}`)}
task: ${yamlString(`::set-output name=a::b${PAYLOAD}`)}
inputs: {}
world: { facts: [] }
tools:
  - name: act
    description: ${yamlString(`  ::warning::tool${PAYLOAD}`)}
    reversibility: irreversible
    preconditions: ["ready(x=1)"]
    parameters: { type: object, properties: {} }
    effects: [ { establish: "done(x=1)" } ]
${extraToolKey ? `    ${yamlString(extraToolKey)}: 1\n` : ''}goal: ["done(x=1)"]
`;

/** Workflow commands our github reporter writes: properties fully %-escaped, one line each. */
const ANNOTATION = /^::(error|warning|notice)( [a-zA-Z]+=[^,:]*(,[a-zA-Z]+=[^,:]*)*)?::/;

/** No raw control character (colour is off: not even ESC), and no line that starts a workflow command unless allowed. */
function expectSafe(text: string, annotations: 'none' | 'ours' = 'none'): void {
  expect(text, 'a control character reached the console').not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  for (const line of text.split('\n')) {
    if (!/^\s*(::|##\[)/.test(line)) continue;
    expect(annotations === 'ours' && ANNOTATION.test(line), `a workflow command from untrusted text: ${line}`).toBe(
      true,
    );
  }
}

describe('terminalText', () => {
  it('shows control characters as escapes and neutralises a leading workflow command', () => {
    expect(terminalText(PAYLOAD)).toBe(SHOWN);
    expect(terminalText('::add-mask::secret')).toBe('\\x3a:add-mask::secret');
    expect(terminalText('  ::error file=x::y')).toBe('  \\x3a:error file=x::y');
    expect(terminalText('##[error]legacy')).toBe('\\x23#[error]legacy');
    expect(terminalText('\r\t\x00\x7f\u0085\u2028\u202e')).toBe('\\r\\t\\x00\\x7f\\u0085\\u2028\\u202e');
    // Ordinary text is untouched, colons and non-ASCII included.
    for (const s of ['a::b', 'tools[0].name: x', 'n = 3 × 2 — ok', 'é ✓ 🚀', '::'])
      expect(terminalText(s)).toBe(s === '::' ? '\\x3a:' : s);
  });

  it('escapes every string of a value, keys too, and leaves other values alone', () => {
    expect(terminalSafeDeep({ [`k${CLEAR}`]: [`v${CLIPBOARD}`, 3, null, true], n: { m: '::x' } })).toEqual({
      'k\\x1b[2J': ['v\\x1b]52;c;cHduZWQ=\\x07', 3, null, true],
      n: { m: '\\x3a:x' },
    });
  });

  it('keeps our own colouring: chalk wraps the escaped text', () => {
    const c = makeChalk(true);
    const painted = c.red(terminalText(PAYLOAD));
    expect(painted.startsWith('\x1b[31m')).toBe(true);
    expect(painted.endsWith('\x1b[39m')).toBe(true);
    expect(painted.match(/\x1b/g)).toHaveLength(2);
  });

  it('neutraliseCommands escapes every line that would start a command', () => {
    expect(neutraliseCommands('ok\n::error::x\n  ##[warning]y\na::b')).toBe(
      'ok\n\\x3a:error::x\n  \\x23#[warning]y\na::b',
    );
  });

  it('github annotations escape message and properties per GitHub, control characters as for the console', () => {
    const line = annotation('error', `boom${PAYLOAD}%`, { file: `a,b:c${CLEAR}\n::error::x`, title: 't' });
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain('boom%0A::error file=x::pwned');
    expect(line).toContain('%25');
    expect(line).toContain('file=a%2Cb%3Ac\\x1b[2J%0A%3A%3Aerror%3A%3Ax,title=t::');
    expectSafe(line, 'ours');
  });

  it('load problems print escaped', () => {
    const shown = formatProblem({
      code: 'unknown_key',
      file: `f${CLEAR}.yaml`,
      line: 1,
      col: 2,
      path: `tools[0].${PAYLOAD}`,
      message: `unknown key "${PAYLOAD}"`,
      hint: `try ${CLIPBOARD}`,
    });
    expect(shown).toContain(`f\\x1b[2J.yaml:1:2 error [unknown_key] tools[0].${SHOWN}: unknown key "${SHOWN}"`);
    expect(shown).toContain('hint: try \\x1b]52;c;cHduZWQ=\\x07');
    expectSafe(shown);
  });

  it('fuzz failure reports print escaped', () => {
    const { lines } = reportFailure(
      {
        scenario: 'evil-one',
        property: `prop${PAYLOAD}`,
        message: `first${CLEAR}\n::add-mask::secret`,
        plan: null,
        seed: 1,
        planner: `p${CLIPBOARD}`,
        // The fault names the property and the planner: hostile text too.
        fault: faultOf({ name: `prop${PAYLOAD}` }, `p${CLIPBOARD}`),
      },
      {
        outDir: tempDir(),
        scenarioRef: 'evil-one',
        propertyRef: 'prop',
        planner: `p${CLIPBOARD}`,
        guard: false,
        transport: 'inprocess',
        maxItems: 6,
        shown: (p) => p,
      },
      makeChalk(false),
    );
    const text = lines.join('\n');
    expect(text).toContain(`prop${SHOWN}`);
    expect(text).toContain('    \\x3a:add-mask::secret');
    expectSafe(text);
  });
});

describe('the commands print untrusted text escaped', () => {
  const library = () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'evil.yaml'), scenarioYaml('evil-one'));
    // Does not load: its unknown key (with the payload) is quoted in the load problem.
    writeFileSync(join(dir, 'broken.yaml'), scenarioYaml('evil-two', `::error file=y::key${PAYLOAD}`));
    return dir;
  };

  it('eval --list: load problems and the title', async () => {
    const dir = library();
    const r = await runCli(evalMain, [`--scenario=${dir}`, '--list'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`unknown key "::error file=y::key${SHOWN}"`);
    expect(r.stdout).toContain('evil-one');
    expect(r.stdout).toContain('Evil\\n::error');
    expect(r.stdout).toContain('\\x1b]52;c;cHduZWQ=\\x07');
    expectSafe(r.stdout);
    expectSafe(r.stderr);
  });

  it('lint: load problems and findings', async () => {
    const dir = library();
    const r = await runCli(lintMain, [dir], dir);
    expect(r.code).toBe(1); // errors found
    expect(r.stdout + r.stderr).toContain(`unknown key "::error file=y::key${SHOWN}"`);
    expectSafe(r.stdout);
    expectSafe(r.stderr);
  });

  it('eval: a planner named with the payload is refused, its name escaped', async () => {
    const dir = library();
    const name = `evil${PAYLOAD}`;
    writeFileSync(
      join(dir, 'evil-planner.mjs'),
      `export default { name: ${JSON.stringify(name)}, next: () => ({ type: 'finish' }) };\n`,
    );
    const r = await runCli(evalMain, [`--scenario=${dir}`, `--planner=${join(dir, 'evil-planner.mjs')}`], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('planner name "evil\\u{a}::error file=x::pwned');
    expect(r.stderr).toContain('is not printable ASCII');
    expectSafe(r.stdout);
    expectSafe(r.stderr);
  });

  it('eval: the table, the annotations and the load problems; recover of a record whose planner name holds the payload', async () => {
    const dir = library();
    writeFileSync(
      join(dir, 'evil-planner.mjs'),
      `export default { name: 'evil', create() { let n = 0; return { name: 'evil', next: () => (n++ === 0 ? { type: 'call', call: { tool: 'act', args: {} } } : { type: 'finish' }) }; } };\n`,
    );
    const out = tempDir();
    const r = await runCli(
      evalMain,
      [`--scenario=${dir}`, `--planner=${join(dir, 'evil-planner.mjs')}`, '--reporter=table,github', `--out=${out}`],
      dir,
    );
    expect(r.code).toBe(2); // the broken scenario is an input error; the other one ran
    expect(r.stderr).toContain(`unknown key "::error file=y::key${SHOWN}"`);
    // Our annotations are there, their untrusted parts escaped.
    expect(r.stdout).toMatch(/^::error file=[^\n]*premature irreversible call[^\n]*::evil/m);
    expect(r.stdout).toMatch(/^::error file=[^\n]*broken\.yaml[^\n]*::tools\[0\]\.::error file=y::key%0A/m);
    expectSafe(r.stdout, 'ours');
    expectSafe(r.stderr);

    // A planner name no evaluation accepts can still reach recover in a record written by hand.
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as Results;
    const record = join(out, results.runs[0]?.record ?? '');
    const forged = join(dir, 'forged.jsonl');
    writeFileSync(
      forged,
      readFileSync(record, 'utf8')
        .split('\n')
        .map((l) =>
          l.includes('"type":"run_start"')
            ? l.replace('"planner":"evil"', `"planner":${JSON.stringify(`evil${PAYLOAD}`)}`)
            : l,
        )
        .join('\n'),
    );
    for (const format of ['text', 'markdown']) {
      const rec = await runCli(
        recoverMain,
        [forged, `--scenario=${join(dir, 'evil.yaml')}`, `--reporter=${format}`],
        dir,
        // Wide enough that the text checklist does not wrap the payload's line.
        { NO_COLOR: '1', COLUMNS: '1000' },
      );
      expect(rec.code).toBe(0);
      expect(rec.stdout).toContain(`planner evil${SHOWN}`);
      expectSafe(rec.stdout);
      expectSafe(rec.stderr);
    }
  }, 30_000);
});
