import { describe, expect, it } from 'vitest';
import { MAX_ALIAS_COUNT, MAX_SOURCE_BYTES, parseYamlSource } from '../../harness/engine/loader/yaml-source.ts';

const SRC = `id: tiny
tools:
  - name: a
    reversibility: irreversable
    empty:
  - { name: b, fact: "x(a=1" }
`;

function source(text: string) {
  const r = parseYamlSource(text, 'f.yaml');
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join('\n'));
  return r.value;
}

describe('locating a field path in YAML', () => {
  const src = source(SRC);

  it('points at the value of a key that exists', () => {
    expect(src.locate(['id'])).toEqual({ line: 1, col: 5 });
    expect(src.locate(['tools', 0, 'reversibility'])).toEqual({ line: 4, col: 20 });
    expect(src.locate(['tools', 1, 'fact'])).toEqual({ line: 6, col: 22 });
  });

  it('points at the key itself when asked for the key', () => {
    expect(src.locate(['tools', 0, 'reversibility'], { at: 'key' })).toEqual({ line: 4, col: 5 });
    expect(src.locate(['tools', 1, 'fact'], { at: 'key' })).toEqual({ line: 6, col: 16 });
  });

  it('points at the key of a key with no value', () => {
    expect(src.locate(['tools', 0, 'empty'])).toEqual({ line: 5, col: 5 });
  });

  it('falls back to the deepest node that exists on the path', () => {
    expect(src.locate(['tools', 0, 'missing'])).toEqual({ line: 3, col: 5 });
    expect(src.locate(['tools', 1, 'missing', 'deeper'])).toEqual({ line: 6, col: 5 });
    expect(src.locate(['tools', 9])).toEqual({ line: 3, col: 3 });
    expect(src.locate(['nothing'])).toEqual({ line: 1, col: 1 });
  });

  it('points inside a one-line string, skipping the opening quote', () => {
    // The quote is at col 22, so "x(a=1" starts at col 23 and offset 1, the "(", is at col 24.
    expect(src.locateInString(['tools', 1, 'fact'], 1)).toEqual({ line: 6, col: 24 });
  });

  it('follows aliases to the anchored node', () => {
    const s = source('base: &b { x: 1, y: 2 }\nother: *b\n');
    expect(s.locate(['other', 'y'])).toEqual({ line: 1, col: 21 });
    expect(s.value).toEqual({ base: { x: 1, y: 2 }, other: { x: 1, y: 2 } });
  });
});

describe('YAML that cannot be read', () => {
  it('reports a syntax error with its line and column', () => {
    const r = parseYamlSource('id: tiny\ntools: [a, b\ngoal: x\n', 'bad.yaml');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems[0]).toMatchObject({ code: 'yaml_syntax', file: 'bad.yaml', line: 3, col: 1 });
    expect(r.problems[0]?.message).not.toMatch(/at line/);
  });

  it('reports a duplicate key at the second occurrence', () => {
    const r = parseYamlSource('id: a\ntitle: T\nid: b\n', 'dup.yaml');
    expect(r.ok ? [] : r.problems).toMatchObject([
      { code: 'yaml_syntax', line: 3, col: 1, hint: expect.stringContaining('once') },
    ]);
  });

  it('refuses more than one document in a file', () => {
    const r = parseYamlSource('id: a\n---\nid: b\n', 'multi.yaml');
    expect(r.ok ? [] : r.problems).toMatchObject([
      { code: 'yaml_syntax', line: 2, message: expect.stringContaining('more than one YAML document') },
    ]);
  });

  it('explains an unquoted template used as a value', () => {
    const r = parseYamlSource('row: { to: {{args.to}} }\n', 't.yaml');
    expect(r.ok ? [] : r.problems).toMatchObject([
      { code: 'yaml_syntax', line: 1, col: 12, hint: expect.stringContaining('must be quoted') },
    ]);
  });

  it('turns an alias bomb into a problem quickly instead of expanding it', () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      levels.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    // The alias count is checked as the aliases are expanded: the limit's problem means it stopped there.
    const r = parseYamlSource(`${levels.join('\n')}\n`, 'bomb.yaml');
    expect(r.ok ? [] : r.problems).toMatchObject([
      { code: 'yaml_limit', line: 2, message: expect.stringContaining(`limit ${MAX_ALIAS_COUNT}`) },
    ]);
  });

  it('allows a few aliases for real reuse', () => {
    expect(source('a: &x [1, 2]\nb: *x\nc: *x\n').value).toEqual({ a: [1, 2], b: [1, 2], c: [1, 2] });
  });

  it('refuses a file over the size limit without parsing it', () => {
    // Unparseable past its size (a tab indent, an unclosed quote): only the size check can answer 1:1 with the limit.
    const huge = `x: "${'a'.repeat(MAX_SOURCE_BYTES)}\n\t- [\n`;
    const r = parseYamlSource(huge, 'huge.yaml');
    expect(r.ok ? [] : r.problems).toMatchObject([
      { code: 'yaml_limit', line: 1, col: 1, message: expect.stringContaining('2 MiB') },
    ]);
  });

  it('refuses absurdly nested brackets quickly', () => {
    // Column 257: the depth check stopped at the first bracket past the limit (the parser would have read them all).
    const r = parseYamlSource('['.repeat(1_000_000), 'deep.yaml');
    expect(r.ok ? [] : r.problems).toMatchObject([{ code: 'yaml_limit', line: 1, col: 257 }]);
  });

  it('does not count brackets inside quotes or comments as nesting', () => {
    const text = `a: "${'['.repeat(300)}"\nb: '${'{'.repeat(300)}'\n# ${'['.repeat(300)}\n`;
    expect(source(text).value).toEqual({ a: '['.repeat(300), b: '{'.repeat(300) });
  });
});
