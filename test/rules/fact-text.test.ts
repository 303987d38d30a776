/**
 * Fact text round-trips: parseFact(formatFact(f)) is f for every value, so scoring
 * can read back what the record wrote (a brace in an argument once crashed the
 * whole evaluation), and a literal `*` never turns into a wildcard on the way.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatFact,
  formatPattern,
  matchesFact,
  mustParsePattern,
  parseFact,
  type Fact,
} from '../../harness/core/facts/fact.ts';
import { renderFactText, renderPattern } from '../../harness/core/facts/template.ts';
import { renderText, templatePaths } from '../../harness/core/templates/render.ts';

const key = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,8}$/);
const value = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom(
    '*',
    '{',
    '}',
    'x{',
    'Thanks :-}',
    ' a',
    'a ',
    '',
    '"',
    '\\',
    ',',
    ')',
    '(',
    '{{args.x}}',
    '\n',
    '\u2028',
  ),
);
const fact: fc.Arbitrary<Fact> = fc.record({ name: key, args: fc.dictionary(key, value, { maxKeys: 4 }) });

describe('fact text', () => {
  it('parse(format(f)) is f for any values (property)', () => {
    fc.assert(
      fc.property(fact, (f) => {
        const r = parseFact(formatFact(f));
        expect(r.ok).toBe(true);
        if (r.ok) {
          expect(r.value.fact).toEqual({ name: f.name, args: { ...f.args } });
          // Nothing formatted without wildcard keys reads back as a wildcard.
          expect(r.value.wild).toEqual([]);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a raw control character in a quoted value, pointing at it, where JSON.parse threw (the loader fuzz found it)', () => {
    for (const c of ['\u0000', '\n', '\u001f']) {
      const text = `rule_set(ranges="${c}185.51.76.0/24")`;
      const r = parseFact(text);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.message).toContain('control character');
        expect(r.message).toContain(`\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
        expect(r.offset).toBe(text.indexOf(c));
      }
    }
    // Escaped, the same character is a value.
    expect(parseFact('rule_set(ranges="\\u001f1")')).toMatchObject({
      ok: true,
      value: { fact: { args: { ranges: '\u001f1' } } },
    });
  });

  it('keeps only the named keys as bare wildcards (property)', () => {
    fc.assert(
      fc.property(fact, fc.array(key), (f, wildKeys) => {
        const wild = new Set(wildKeys.filter((k) => f.args[k] === '*'));
        const p = mustParsePattern(formatPattern(f, wild));
        expect(p.fact).toEqual({ name: f.name, args: { ...f.args } });
        expect([...p.wild].sort()).toEqual([...wild].sort());
      }),
      { numRuns: 300 },
    );
  });

  it('quotes braces, edge spaces and a literal star (hand-written cases)', () => {
    expect(formatFact({ name: 'sent', args: { note: 'Thanks :-}', to: 'x{' } })).toBe(
      'sent(note="Thanks :-}", to="x{")',
    );
    expect(formatFact({ name: 'sent', args: { to: '*' } })).toBe('sent(to="*")');
    expect(formatPattern({ name: 'sent', args: { to: '*' } }, new Set(['to']))).toBe('sent(to=*)');
    expect(formatFact({ name: 'sent', args: { to: ' a' } })).toBe('sent(to=" a")');
  });

  it('renders a `*` from an argument as literal text and a template-written `*` as a wildcard', () => {
    const r = renderPattern('verified(email={{args.to}}, by=*)', { args: { to: '*' } });
    expect(r.fact).toEqual({ name: 'verified', args: { email: '*', by: '*' } });
    expect([...r.written]).toEqual(['by']);
    expect(renderFactText('verified(email={{args.to}}, by=*)', { args: { to: '*' } })).toBe(
      'verified(by=*, email="*")',
    );
    // A template with no value is an unknown under 'wildcard': bare in the text.
    expect(renderFactText('created(id={{result.id}})', {})).toBe('created(id=*)');
    // The literal star matches only a wildcard or itself.
    const world = { name: 'verified', args: { email: 'bob@acme.example', by: 'crm' } };
    expect(matchesFact(r.fact, world, { wildcardKeys: r.written })).toBe(false);
  });

  it('renders templates in linear time ("{{" and many spaces)', () => {
    // The old pattern backtracked cubically here (4,000 spaces: 15 s). Not a timing assertion: it must simply finish.
    const text = `{{${' '.repeat(20_000)}x`;
    expect(renderText(text, {})).toBe(text);
    expect(templatePaths(`${text}}}`)).toEqual(['x']);
  });
});
