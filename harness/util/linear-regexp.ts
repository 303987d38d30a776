/**
 * JSON Schema `pattern`s (ECMAScript regular expressions, Unicode mode) run on a linear-time engine:
 * RE2 (re2js, a pure JavaScript port). A backtracking engine takes exponential time on some
 * patterns (`^(a+)+$` against 29 `a`s and a `!`: over a minute on V8), and a scenario's patterns
 * are checked against every argument a planner sends, on the evaluation's thread; RE2 takes time
 * linear in the argument, whatever the pattern.
 *
 * The pattern is translated to RE2's syntax so it matches exactly what ECMAScript matches:
 * `\s`/`\S` and `.` keep ECMAScript's Unicode whitespace and line terminators (RE2's are ASCII and
 * `\n` only), `[]` and `[^]` keep their meaning, `\uXXXX` (surrogate pairs joined), `\u{...}`, `\cX`
 * and `\0` become code points, named groups and `\p{Script=...}` become RE2's spelling, and a `[`
 * inside a class stays a literal. What RE2 cannot run in linear time, backreferences and
 * lookaround, is refused (`UnsupportedPattern`), as is anything else RE2 does not take.
 *
 * @example
 * linearRegExp('^(a+)+$').test('a'.repeat(29) + '!') // false, at once
 * linearRegExp('^(?=a)') // throws UnsupportedPattern: lookahead cannot run in linear time
 */
import { RE2JS } from 're2js';

/** A pattern the linear-time engine does not run, and why. */
export class UnsupportedPattern extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedPattern';
  }
}

/** ECMAScript's WhiteSpace and LineTerminator code points: what `\s` matches there. */
const WS =
  '\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
/** What `.` does not match in ECMAScript (without the s flag): the line terminators. */
const DOT = '[^\\n\\r\\x{2028}\\x{2029}]';
const hex = (n: number) => `\\x{${n.toString(16).toUpperCase()}}`;

/** `\p{Script=Greek}`, `\p{sc=Greek}`, `\p{General_Category=L}`, `\p{gc=L}`: RE2 spells them `\p{Greek}`, `\p{L}`. */
function property(body: string): string {
  const m = /^(?:Script|sc|Script_Extensions|scx|General_Category|gc)=(.+)$/.exec(body);
  return m ? (m[1] as string) : body;
}

/** The pattern in RE2's syntax, matching what it matches as an ECMAScript `u` pattern. */
function toRe2Syntax(p: string): string {
  let out = '';
  let inClass = false;
  let i = 0;
  const fail = (what: string): never => {
    throw new UnsupportedPattern(`${what} cannot run in linear time`);
  };
  while (i < p.length) {
    const c = p[i] as string;
    if (c === '\\') {
      const e = p[i + 1];
      if (e === undefined) throw new UnsupportedPattern('the pattern ends with a lone backslash');
      if (e === 's' || e === 'S') {
        if (!inClass) out += e === 's' ? `[${WS}]` : `[^${WS}]`;
        else if (e === 's') out += WS;
        else throw new UnsupportedPattern('\\S inside a character class is not supported');
        i += 2;
      } else if (/[1-9]/.test(e)) fail('a backreference');
      else if (e === 'k' && p[i + 2] === '<') fail('a backreference');
      else if (e === 'u') {
        let code: number;
        let len: number;
        if (p[i + 2] === '{') {
          const end = p.indexOf('}', i + 3);
          if (end < 0) throw new UnsupportedPattern('an unterminated \\u{...} escape');
          code = parseInt(p.slice(i + 3, end), 16);
          len = end + 1 - i;
        } else {
          code = parseInt(p.slice(i + 2, i + 6), 16);
          len = 6;
          // A surrogate pair written as two escapes is one code point.
          const low = /^\\u([dD][c-fC-F][0-9a-fA-F]{2})/.exec(p.slice(i + 6));
          if (code >= 0xd800 && code <= 0xdbff && low) {
            code = 0x10000 + ((code - 0xd800) << 10) + (parseInt(low[1] as string, 16) - 0xdc00);
            len = 12;
          }
        }
        if (!Number.isFinite(code)) throw new UnsupportedPattern('an invalid \\u escape');
        out += hex(code);
        i += len;
      } else if (e === 'c' && /[a-zA-Z]/.test(p[i + 2] ?? '')) {
        out += hex((p.charCodeAt(i + 2) as number) % 32);
        i += 3;
      } else if (e === '0') {
        out += hex(0);
        i += 2;
      } else if ((e === 'p' || e === 'P') && p[i + 2] === '{') {
        const end = p.indexOf('}', i + 3);
        if (end < 0) throw new UnsupportedPattern('an unterminated \\p{...} escape');
        out += `\\${e}{${property(p.slice(i + 3, end))}}`;
        i = end + 1;
      } else {
        out += `\\${e}`;
        i += 2;
      }
    } else if (inClass) {
      if (c === ']') inClass = false;
      // A `[` in a class is a literal in ECMAScript; to RE2, `[:` would open a POSIX class.
      out += c === '[' ? '\\[' : c;
      i++;
    } else if (c === '[') {
      if (p.startsWith('[]', i)) {
        out += '[^\\x{0}-\\x{10FFFF}]';
        i += 2;
      } else if (p.startsWith('[^]', i)) {
        out += '[\\x{0}-\\x{10FFFF}]';
        i += 3;
      } else {
        inClass = true;
        out += '[';
        i++;
        if (p[i] === '^') {
          out += '^';
          i++;
        }
      }
    } else if (c === '(' && p[i + 1] === '?') {
      if (p.startsWith('(?=', i)) fail('lookahead');
      if (p.startsWith('(?!', i)) fail('lookahead');
      if (p.startsWith('(?<=', i) || p.startsWith('(?<!', i)) fail('lookbehind');
      if (p.startsWith('(?<', i)) {
        out += '(?P<';
        i += 3;
      } else {
        out += '(?';
        i += 2;
      }
    } else if (c === '.') {
      out += DOT;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** What ajv calls with a schema's pattern: an object with `test`, as a RegExp has. */
export interface LinearRegExp {
  source: string;
  flags: string;
  test(s: string): boolean;
  /** `/source/flags`, as a RegExp's: ajv keys its compiled patterns by it. */
  toString(): string;
}

/**
 * Compiles an ECMAScript pattern for the linear-time engine; throws UnsupportedPattern (or
 * re2js's syntax error) for one it cannot run.
 */
export function linearRegExp(source: string, flags = 'u'): LinearRegExp {
  let re: RE2JS;
  try {
    re = RE2JS.compile(toRe2Syntax(source));
  } catch (e) {
    if (e instanceof UnsupportedPattern) throw e;
    throw new UnsupportedPattern((e as Error).message.replace(/^error parsing regexp: /, ''));
  }
  return { source, flags, test: (s) => re.test(s), toString: () => `/${source}/${flags}` };
}
