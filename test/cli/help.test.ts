import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../harness/cli/commands.ts';
import { helpWidth, wrapHelp } from '../../harness/cli/help.ts';
import { run } from '../../harness/cli/program.ts';
import { runCli } from '../helpers/cli.ts';

/** Lines wider than `width` columns (one a code point: help is plain text). */
const over = (text: string, width: number) => text.split('\n').filter((l) => [...l].length > width);

describe('help fits the terminal', () => {
  it.each([['oneway'], ...COMMANDS.map((c) => [c.name])])(
    '%s --help at COLUMNS=80: no line over 80 columns',
    async (name) => {
      const argv = name === 'oneway' ? ['--help'] : [name, '--help'];
      const r = await runCli(run, argv, process.cwd(), { NO_COLOR: '1', COLUMNS: '80' });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/usage/i);
      expect(over(r.stdout, 80)).toEqual([]);
    },
  );

  it('is as wide as the terminal, else COLUMNS, else 80; never under 60', () => {
    const stdout = (columns?: number) => ({ columns }) as unknown as NodeJS.WritableStream;
    expect(helpWidth({ stdout: stdout(132), env: { COLUMNS: '90' } })).toBe(132);
    expect(helpWidth({ stdout: stdout(), env: { COLUMNS: '90' } })).toBe(90);
    expect(helpWidth({ stdout: stdout(), env: {} })).toBe(80);
    expect(helpWidth({ stdout: stdout(40), env: {} })).toBe(60);
  });

  it('continues a description under its column, reflowing its hand-wrapped lines; what fits stays as written', () => {
    const help = [
      'Usage: x [options]',
      '',
      '  --out=DIR        where results.json and runs go, relative to the current directory',
      '                   (default: reports/latest)',
      '  --very-long-option-name=VALUE',
      '                   a description on the line below its long term',
      '  -h, --help       this help',
      '',
      'Exit status: 0 done; 1 a gate failed; 2 a usage error, with a hint and',
      'never a stack trace.',
      'Examples: x --out=a',
      '          x --out=b',
    ].join('\n');
    expect(wrapHelp(help, 200)).toBe(help);
    expect(wrapHelp(help, 60)).toBe(
      [
        'Usage: x [options]',
        '',
        '  --out=DIR        where results.json and runs go, relative',
        '                   to the current directory (default:',
        '                   reports/latest)',
        '  --very-long-option-name=VALUE',
        '                   a description on the line below its long',
        '                   term',
        '  -h, --help       this help',
        '',
        'Exit status: 0 done; 1 a gate failed; 2 a usage error, with',
        'a hint and never a stack trace.',
        'Examples: x --out=a',
        '          x --out=b',
      ].join('\n'),
    );
  });

  it('cuts a word wider than the line, so that no line is wider', () => {
    const wrapped = wrapHelp(`  --x   ${'a'.repeat(100)}`, 60);
    expect(over(wrapped, 60)).toEqual([]);
    expect(wrapped.replace(/\s/g, '')).toBe(`--x${'a'.repeat(100)}`);
  });
});
