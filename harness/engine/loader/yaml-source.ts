/**
 * YAML (and JSON, which is YAML) text parsed with its source positions kept, so
 * every later problem can say `file:line:col`. Abuse is refused up front: files
 * over 2 MiB, binary files, alias bombs, nesting deep enough to exhaust the stack.
 */
import {
  isAlias,
  isCollection,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  YAMLParseError,
  type Document,
  type Node,
  type Pair,
  type YAMLError,
} from 'yaml';
import type { Problem, Result } from '../../core/errors.ts';
import { unquotedFactListFix } from './fact-lists.ts';

export const MAX_SOURCE_BYTES = 2 * 1024 * 1024;
/** Alias expansions allowed per file: enough for real reuse, far too few for a billion laughs. */
export const MAX_ALIAS_COUNT = 100;
/**
 * Aliases (`*name`) a file may hold, counted in its text before it is parsed: real reuse needs a
 * few dozen; 130,000 aliases of one scalar (1.7 MB) would cost the parser seconds before the
 * expansion limit refused them.
 */
export const MAX_ALIASES = 1000;
/** An alias where a node starts (the line's start, or after a space, "[", "{" or ","): `*` then a name. */
const ALIAS_AT = /(?:^|[\s[{,])\*[^\s[\]{},]/gm;
/**
 * The size a document may reach once its aliases are expanded, as JSON (which is what records,
 * results and reports hold). A file without aliases stays well under it (JSON is at most about
 * 3x its YAML); a few aliases of a large anchor would otherwise multiply it (99 aliases of a
 * 1.9 MB file: a 372 MB record).
 */
export const MAX_EXPANDED_BYTES = 8 * 1024 * 1024;
/** Keys JavaScript objects treat specially: `__proto__` would be dropped, the others shadow what every object has. */
const RESERVED_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype'];

export type FieldPath = readonly (string | number)[];

export interface Pos {
  line: number;
  col: number;
  /** The file, when it is not the one asked about (a part a scenario took from a shared file: extends.ts). */
  file?: string;
}

export interface YamlSource {
  file: string;
  text: string;
  /** The document as plain JSON-like data. */
  value: unknown;
  /**
   * Where `path` is, 1-based: the deepest node that exists on the path. With `at: 'key'` a
   * path that ends in a mapping key points at the key (used for unknown keys), else at its value.
   */
  locate(path: FieldPath, opts?: { at?: 'key' | 'value' }): Pos;
  /**
   * Where character `offset` of the string value at `path` is, when that value is a one-line
   * scalar; otherwise where the value starts.
   */
  locateInString(path: FieldPath, offset: number): Pos;
}

const MAX_SIZE_TEXT = `${MAX_SOURCE_BYTES / 1024 / 1024} MiB`;

/** Syntax errors reported per file: after the first few, the rest are usually echoes. */
const MAX_SYNTAX_PROBLEMS = 50;
/**
 * Nesting deeper than this is refused before parsing: indentation levels, compact `- `
 * and `? ` items, and flow collections (`[`, `{`) together. The parser, and the checks
 * after it, recurse per level; a few hundred levels of "- - - -" (two bytes each) would
 * exhaust the stack, which V8 does not always survive.
 */
export const MAX_NESTING_DEPTH = 256;

/** The problem for a file too large to read, shared with callers that check the size before reading. */
export function tooLargeProblem(file: string, bytes: number): Problem {
  return {
    code: 'yaml_limit',
    file,
    line: 1,
    col: 1,
    path: '(root)',
    message: `the file is ${(bytes / 1024 / 1024).toFixed(1)} MiB; scenario and plan files are limited to ${MAX_SIZE_TEXT}`,
    hint: 'split it into several files, or move bulk data out of it',
  };
}

const SYNTAX_HINTS: Record<string, string> = {
  BAD_INDENT: 'check the indentation: nested keys are indented further than their parent, with spaces',
  TAB_AS_INDENT: 'indent with spaces, not tabs',
  DUPLICATE_KEY: 'each key may appear only once in a mapping',
  MULTIPLE_DOCS: 'a file holds one scenario: remove the "---" separator or split the file',
  MISSING_CHAR: 'a bracket or quote is not closed',
  BLOCK_AS_IMPLICIT_KEY: 'a key ends at ":"; quote values that contain ": "',
};
const QUOTE_HINT =
  'quote values that contain ": " or " #", or start with {, [, *, &, !, |, >, %, @ or ` (e.g. "{{args.to}}")';
const INDENT_HINT = SYNTAX_HINTS.BAD_INDENT as string;
/**
 * The parser's error codes are coarse (MISSING_CHAR covers a missing comma and a missing
 * "-"), so the message decides the hint first.
 */
const MESSAGE_HINTS: [RegExp, string][] = [
  [/Missing , between/, 'a comma is missing between two items of a {...} mapping or [...] list'],
  [/Missing closing .?quote/, 'a quoted value is not closed: add the closing quote'],
  [/without - indicator|same column|sufficiently indented(?! and end)/, INDENT_HINT],
  [
    /Implicit map keys need to be followed by map values/,
    'a line holds a key without ":", or text that is not "key: value"',
  ],
];
/** Syntax errors that do not derail the parse: the ones after them are still real. */
const INDEPENDENT_ERRORS = new Set(['DUPLICATE_KEY']);
/**
 * Characters YAML forbids in a file (outside escapes): C0 and C1 controls except tab and
 * line breaks, and unpaired surrogates. A file with them is binary, compressed or UTF-16.
 */
const NOT_PRINTABLE =
  /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Parses YAML or JSON text, keeping positions.
 *
 * @example
 * const r = parseYamlSource('id: tiny\ntools: []\n', 'tiny.yaml');
 * if (r.ok) r.value.locate(['tools']); // { line: 2, col: 8 }
 */
export function parseYamlSource(text: string, file: string): Result<YamlSource> {
  const refused = refusedUnparsed(text, file);
  if (refused) return { ok: false, problems: [refused] };

  const lineCounter = new LineCounter();
  const pos = (offset: number): Pos => {
    const p = lineCounter.linePos(Math.max(0, Math.min(offset, text.length)));
    return { line: Math.max(1, p.line), col: Math.max(1, p.col) };
  };
  const problem: ProblemAt = (code, offset, message, hint) => ({
    code,
    file,
    ...pos(offset),
    path: '(root)',
    message,
    ...(hint ? { hint } : {}),
  });

  let doc: Document.Parsed;
  try {
    // Node ranges are all the positions need; `keepSourceTokens` would keep the whole CST alive for nothing.
    // No `prettyErrors`: it copies the source line into every error (a line of 16k "," took seconds),
    // and the position is reported separately anyway. No `uniqueKeys`: the parser compares each key
    // with every earlier key of its mapping (130,000 keys, or aliases as keys, in a 1.7 MB file took
    // minutes); duplicateKeys finds the same duplicates in one pass.
    doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false });
  } catch (e) {
    // The parser recurses per nesting level; absurd nesting exhausts the stack.
    return {
      ok: false,
      problems: [problem('yaml_limit', 0, `the YAML cannot be parsed: ${errorText(e)}`, 'reduce the nesting depth')],
    };
  }
  const errors = [...doc.errors, ...duplicateKeys(doc)];
  if (errors.length > 0) return { ok: false, problems: syntaxProblems(errors, file, text, pos) };

  const { keyProblems, firstAlias } = walkDocument(doc, text, problem);
  if (keyProblems.length > 0) return { ok: false, problems: keyProblems };

  const expanded = expandAliases(doc, firstAlias, problem);
  if (!expanded.ok) return expanded;
  return { ok: true, value: { file, text, value: expanded.value, ...locator(doc, text, pos) } };
}

/** A problem at a character offset of the file being parsed, at the root path. */
type ProblemAt = (code: Problem['code'], offset: number, message: string, hint?: string) => Problem;

/** What refuses a file before the parser sees it: its size, characters YAML does not allow, nesting too deep. */
function refusedUnparsed(text: string, file: string): Problem | undefined {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_SOURCE_BYTES) return tooLargeProblem(file, bytes);

  const bad = NOT_PRINTABLE.exec(text);
  if (bad) {
    const at = bad.index;
    const line = text.slice(0, at).split('\n').length;
    const code = (bad[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
    return {
      code: 'yaml_syntax',
      file,
      line,
      col: at - text.lastIndexOf('\n', at - 1),
      path: '(root)',
      message: `the file is not YAML text: it contains the character U+${code}, which YAML does not allow`,
      hint: 'scenario and plan files are UTF-8 text (YAML or JSON); is this a binary, compressed or UTF-16 file?',
    };
  }

  const alias = aliasPastLimit(text);
  if (alias !== undefined) {
    const line = text.slice(0, alias).split('\n').length;
    return {
      code: 'yaml_limit',
      file,
      line,
      col: alias - text.lastIndexOf('\n', alias - 1),
      path: '(root)',
      message: `the file holds more than ${MAX_ALIASES} aliases (*name); this is alias ${MAX_ALIASES + 1}`,
      hint: 'write the repeated data out, or reuse fewer anchors (*alias)',
    };
  }

  // The parser recurses per nesting level and reports every unclosed bracket: a file of
  // brackets exhausts memory before it fails, so measure the depth first.
  const deep = tooDeepAt(text);
  if (deep) {
    const line = text.slice(0, deep.at).split('\n').length;
    const col = deep.at - text.lastIndexOf('\n', deep.at - 1);
    return {
      code: 'yaml_limit',
      file,
      line,
      col,
      path: '(root)',
      message: deep.brackets
        ? `brackets are nested more than ${MAX_NESTING_DEPTH} deep`
        : `the YAML is nested more than ${MAX_NESTING_DEPTH} levels deep`,
      hint: 'reduce the nesting depth',
    };
  }
  return undefined;
}

/**
 * Where the alias past MAX_ALIASES is (the offset of its `*`), or undefined. Counted in the text, so
 * a `*name` inside a quoted value or a block scalar counts too: a file needs more than a thousand
 * of them to be refused.
 */
function aliasPastLimit(text: string): number | undefined {
  ALIAS_AT.lastIndex = 0;
  let n = 0;
  for (let m = ALIAS_AT.exec(text); m; m = ALIAS_AT.exec(text))
    if (++n > MAX_ALIASES) return m.index + (m[0].startsWith('*') ? 0 : 1);
  return undefined;
}

/**
 * The parser's errors, up to the first that derails it (a tab, a lost indent, an unclosed
 * bracket): the rest are echoes of it, often dozens and misleading.
 */
function syntaxProblems(
  found: readonly YAMLError[],
  file: string,
  text: string,
  pos: (offset: number) => Pos,
): Problem[] {
  const errors = [...found].sort((a, b) => a.pos[0] - b.pos[0]);
  const shown: YAMLError[] = [];
  for (const e of errors) {
    if (shown.length >= MAX_SYNTAX_PROBLEMS) break;
    shown.push(e);
    if (!INDEPENDENT_ERRORS.has(e.code)) break;
  }
  const problems = shown.map((e) => syntaxProblem(e, file, text, pos));
  const more = errors.length - shown.length;
  const last = problems[problems.length - 1];
  if (more > 0 && last)
    last.message += ` (${more} more syntax error${more === 1 ? '' : 's'} after this one, most likely caused by it)`;
  return problems;
}

/**
 * The parser's own duplicate-key errors (its `uniqueKeys`: two keys of a mapping are the same when
 * they are scalars of equal value), found with a set per mapping instead of its pairwise comparison.
 */
function duplicateKeys(doc: Document.Parsed): YAMLParseError[] {
  const found: YAMLParseError[] = [];
  const walk = (node: unknown): void => {
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const key = pair.key;
        if (isScalar(key)) {
          if (seen.has(key.value))
            found.push(
              new YAMLParseError(
                [key.range?.[0] ?? 0, key.range?.[1] ?? 0],
                'DUPLICATE_KEY',
                'Map keys must be unique',
              ),
            );
          else seen.add(key.value);
        }
        walk(key);
        walk(pair.value);
      }
    } else if (isSeq(node)) for (const item of node.items) walk(item);
  };
  walk(doc.contents);
  return found;
}

/**
 * One walk over the document, in document order (a pair's key before its value), as `visit` from
 * yaml would go but without the path it builds for every node: the keys no scenario can have
 * (reserved JavaScript names, and mappings or lists used as keys, almost always an unquoted
 * `{{template}}`), and where the first alias is.
 */
function walkDocument(
  doc: Document.Parsed,
  text: string,
  problem: ProblemAt,
): { keyProblems: Problem[]; firstAlias: number | undefined } {
  const keyProblems: Problem[] = [];
  let firstAlias: number | undefined;
  const walk = (node: unknown, holder: unknown): void => {
    if (isPair(node)) {
      checkKey(node, holder);
      walk(node.key, node);
      walk(node.value, node);
    } else if (isCollection(node)) {
      for (const item of node.items) walk(item, node);
    } else if (isAlias(node)) firstAlias ??= node.range?.[0] ?? 0;
  };
  const checkKey = (pair: Pair<unknown, unknown>, holder: unknown): void => {
    const name = isScalar(pair.key) ? pair.key.value : undefined;
    if (typeof name === 'string' && RESERVED_KEYS.includes(name)) {
      keyProblems.push(
        problem(
          'schema',
          (pair.key as Node).range?.[0] ?? 0,
          `"${name}" cannot be a key: JavaScript objects treat it specially${name === '__proto__' ? ' (it would be dropped without a word)' : ''}`,
          'rename it (table, column, input, deployment and parameter names are plain names)',
        ),
      );
    } else if (isCollection(pair.key)) {
      // Point at the mapping that holds the key: where the unquoted "{{" starts.
      const at = (holder as Node | undefined)?.range?.[0] ?? (pair.key as Node).range?.[0] ?? 0;
      keyProblems.push(
        text.startsWith('{{', at)
          ? problem(
              'yaml_syntax',
              at,
              'a mapping is used as a key',
              `a value that starts with "{{" must be quoted: "{{args.x}}"`,
            )
          : problem(
              'yaml_syntax',
              (pair.key as Node).range?.[0] ?? at,
              'a key is itself a mapping or a list',
              'keys are plain names; complex keys ("? ") are not supported',
            ),
      );
    }
  };
  walk(doc.contents, doc);
  return { keyProblems, firstAlias };
}

/**
 * The document as plain data, its aliases expanded within MAX_ALIAS_COUNT and MAX_EXPANDED_BYTES
 * (`firstAlias`: where the document's first alias is, if it has one).
 */
function expandAliases(doc: Document.Parsed, firstAlias: number | undefined, problem: ProblemAt): Result<unknown> {
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    if (!/alias/i.test(errorText(e))) {
      return { ok: false, problems: [problem('yaml_syntax', 0, `the YAML cannot be read: ${errorText(e)}`)] };
    }
    const at = firstAlias ?? 0;
    return {
      ok: false,
      problems: [
        problem(
          'yaml_limit',
          at,
          `too many alias expansions (limit ${MAX_ALIAS_COUNT}): ${errorText(e)}`,
          'write the repeated data out, or reuse fewer anchors (*alias) inside other anchors',
        ),
      ],
    };
  }

  // Aliases share one value in memory, but every file written from it (records, results, reports)
  // holds each copy: bound the expanded size.
  if (firstAlias !== undefined && jsonSizeOver(value, MAX_EXPANDED_BYTES)) {
    return {
      ok: false,
      problems: [
        problem(
          'yaml_limit',
          firstAlias,
          `with its aliases expanded the document is over ${MAX_EXPANDED_BYTES / 1024 / 1024} MiB, the limit (records and reports hold every copy; an anchor that contains its own alias never ends)`,
          'reference large anchors (*alias) fewer times, or move bulk data out of the scenario',
        ),
      ],
    };
  }
  return { ok: true, value };
}

/** `locate` and `locateInString` over a parsed document (see YamlSource). */
function locator(
  doc: Document.Parsed,
  text: string,
  pos: (offset: number) => Pos,
): Pick<YamlSource, 'locate' | 'locateInString'> {
  const nodeAt = (path: FieldPath): { node: unknown; keyNode?: unknown; depth: number } => {
    let node: unknown = doc.contents;
    let keyNode: unknown;
    let depth = 0;
    for (const seg of path) {
      node = deref(doc, node);
      let next: unknown;
      let nextKey: unknown;
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && keyText(p.key) === String(seg));
        if (pair) {
          next = pair.value;
          nextKey = pair.key;
        }
      } else if (isSeq(node) && typeof seg === 'number') {
        next = node.items[seg];
      }
      if (next === undefined && nextKey === undefined) break;
      node = next;
      keyNode = nextKey;
      depth++;
    }
    return { node, keyNode, depth };
  };

  const startOf = (n: unknown): number | undefined => {
    if (n === null || typeof n !== 'object') return undefined;
    const range = (n as Node).range;
    return range ? range[0] : undefined;
  };

  /** A present value, or null for `key:` with nothing after it. */
  const hasValue = (n: unknown): boolean => {
    if (n === null || n === undefined) return false;
    if (isScalar(n) && n.value === null && n.range && n.range[0] === n.range[1]) return false;
    return startOf(n) !== undefined;
  };

  const locateImpl = (path: FieldPath, at: 'key' | 'value'): { pos: Pos; node: unknown; exact: boolean } => {
    // Walk up until a prefix of the path exists in the document.
    const found = nodeAt(path);
    const exact = found.depth === path.length;
    const lastIsKey = exact && found.keyNode !== undefined;
    if (lastIsKey && (at === 'key' || !hasValue(found.node))) {
      return { pos: pos(startOf(found.keyNode) ?? 0), node: found.node, exact };
    }
    const start = startOf(found.node);
    if (start !== undefined) return { pos: pos(start), node: found.node, exact };
    // A value without a range (e.g. an empty value): fall back to its key, or the file start.
    return { pos: pos(startOf(found.keyNode) ?? 0), node: found.node, exact };
  };

  return {
    locate: (path, opts) => locateImpl(path, opts?.at ?? 'value').pos,
    locateInString: (path, offset) => {
      const { pos: p, node, exact } = locateImpl(path, 'value');
      if (!exact || !isScalar(node) || typeof node.value !== 'string' || !node.range) return p;
      const raw = text.slice(node.range[0], node.range[1]);
      if (raw.includes('\n')) return p;
      const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE';
      if (!quoted && node.type !== 'PLAIN') return p;
      const lead = node.value.length - node.value.trimStart().length;
      return pos(node.range[0] + (quoted ? 1 : 0) + lead + Math.max(0, offset));
    },
  };
}

/** A mapping key at the start of a line's content: `name:` followed by a space or the line end. */
const KEY_AHEAD = /^[^\s#'"[{\]}:,-][^:#\n]*:(?:[ \t\r]|$)/m;

/**
 * Where nesting first exceeds MAX_NESTING_DEPTH, or undefined. Block structure is read
 * from each line's indentation, its `- `/`? `/`: ` indicators and whether it starts with a
 * key (an estimate that does not parse, good to a level or so); brackets add to it.
 * Quotes and comments are skipped; a quote ends at the end of its line, so that an
 * apostrophe in plain text cannot hide the rest of the file.
 */
function tooDeepAt(text: string): { at: number; brackets: boolean } | undefined {
  // The block collections open at the current line: the column of each, and whether it is a mapping.
  const open: { col: number; map: boolean }[] = [];
  let block = 0;
  let flow = 0;
  let quote: string | null = null;
  const isIndicator = (j: number) =>
    (text[j] === '-' || text[j] === '?' || text[j] === ':') && /^[ \t\r\n]?$/.test(text[j + 1] ?? '');
  const lineStarts = (start: number): { at: number; brackets: boolean } | undefined => {
    quote = null;
    if (flow > 0) return undefined; // inside [...] or {...}, indentation means nothing
    let j = start;
    while (text[j] === ' ') j++;
    const c = text[j];
    if (c === undefined || c === '\n' || c === '\r' || c === '#') return undefined;
    const width = j - start;
    // A sequence may sit at the same column as the key that holds it ("key:\n- item").
    const item = text[j] === '-' && isIndicator(j);
    for (
      let top = open[open.length - 1];
      top && (top.col > width || (top.col === width && !(item && top.map)));
      top = open[open.length - 1]
    )
      open.pop();
    const push = (col: number, map: boolean) => {
      open.push({ col, map });
      return open.length - 1 > MAX_NESTING_DEPTH;
    };
    while (isIndicator(j)) {
      if (push(j - start, false)) return { at: j, brackets: false };
      j++;
      while (text[j] === ' ' || text[j] === '\t') j++;
    }
    if (KEY_AHEAD.test(text.slice(j, j + 256)) && push(j - start, true)) return { at: j, brackets: false };
    block = Math.max(0, open.length - 1);
    return undefined;
  };

  const first = lineStarts(0);
  if (first) return first;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      const deep = lineStarts(i + 1);
      if (deep) return deep;
      continue;
    }
    if (quote) {
      if (c === '\\' && quote === '"' && text[i + 1] !== '\n') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '#' && (i === 0 || /\s/.test(text[i - 1] ?? ''))) {
      const nl = text.indexOf('\n', i);
      if (nl < 0) break;
      i = nl - 1; // the newline itself starts the next line
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') {
      if (++flow + block > MAX_NESTING_DEPTH) return { at: i, brackets: true };
    } else if ((c === ']' || c === '}') && flow > 0) flow--;
  }
  return undefined;
}

/**
 * Whether `value` written as JSON would exceed `limit` bytes (about: strings count their length
 * plus quotes). Stops as soon as it does, so the walk is bounded by the limit, not by the
 * expansion, and a recursive alias (a value that contains itself) is simply too large.
 */
export function jsonSizeOver(value: unknown, limit: number): boolean {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') size += v.length + 3;
    else if (Array.isArray(v)) {
      size += 2 + v.length;
      if (size > limit) return true;
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    } else if (v !== null && typeof v === 'object') {
      size += 2;
      for (const k of Object.keys(v)) {
        size += k.length + 4;
        if (size > limit) return true;
        stack.push((v as Record<string, unknown>)[k]);
      }
    } else size += String(v).length + 1;
    if (size > limit) return true;
  }
  return false;
}

function deref(doc: Document.Parsed, node: unknown): unknown {
  // Follow aliases so paths through `*anchor` reach the anchored node.
  let n = node;
  for (let i = 0; i < 8 && isAlias(n); i++) n = n.resolve(doc);
  return n;
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  if (typeof key === 'string' || typeof key === 'number') return String(key);
  return undefined;
}

function syntaxProblem(e: YAMLError, file: string, text: string, pos: (offset: number) => Pos): Problem {
  let at = pos(e.pos[0]);
  // Should a message carry " at line L, column C:" and an excerpt (prettyErrors), the position is reported separately.
  let message = e.message.split(/ at line \d+, column \d+/)[0]?.trim() || e.message;
  if (/call stack/i.test(message)) {
    return {
      code: 'yaml_limit',
      file,
      line: at.line,
      col: at.col,
      path: '(root)',
      message: 'the YAML is nested too deeply to parse',
      hint: 'reduce the nesting depth',
    };
  }
  let hint = MESSAGE_HINTS.find(([re]) => re.test(message))?.[1] ?? SYNTAX_HINTS[e.code] ?? QUOTE_HINT;
  const errorLineStart = text.lastIndexOf('\n', Math.max(0, e.pos[0] - 1)) + 1;
  const errorLineEnd = text.indexOf('\n', errorLineStart);
  const factFix = unquotedFactListFix(text.slice(errorLineStart, errorLineEnd < 0 ? text.length : errorLineEnd));
  const close = /end with an? ([}\]])/.exec(message)?.[1];
  if (factFix) {
    // `[paid(vendor={{args.vendor}}, amount=1)]`: the "," ended an item and "{" opened a mapping.
    at = pos(errorLineStart + factFix.col);
    message = `the fact ${factFix.fact} is not quoted, so YAML cannot read it in a [...] list`;
    hint = `in [...] YAML ends an item at "," and reads "{" as a mapping; quote the whole fact: ${factFix.fixed}`;
  } else if (close) {
    const open = unclosedBracket(text, e.pos[0], close === '}' ? '{' : '[');
    const where = open >= 0 ? ` at ${pos(open).line}:${pos(open).col}` : ' before this line';
    hint = `the "${close === '}' ? '{' : '['}"${where} is not closed: add "${close}" where it ends`;
  } else if (/Missing closing .?quote/.test(message)) {
    // The parser notices at the end of the value; the quote that opened it is clearer.
    const q = message.includes("'") ? "'" : '"';
    const lineStart = text.lastIndexOf('\n', Math.max(0, e.pos[0] - 1)) + 1;
    const lineEnd = text.indexOf('\n', lineStart);
    const line = text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd);
    if (line.split(q).length % 2 === 0) at = pos(lineStart + line.lastIndexOf(q));
  } else if (hint === INDENT_HINT) {
    // The parser points at the start of the line; the misplaced key is after the indentation.
    const lineStart = text.lastIndexOf('\n', Math.max(0, e.pos[0] - 1)) + 1;
    const indent = /^ */.exec(text.slice(lineStart))?.[0].length ?? 0;
    if (e.pos[0] <= lineStart + indent && indent > 0) at = pos(lineStart + indent);
  }
  return {
    code: 'yaml_syntax',
    file,
    line: at.line,
    col: at.col,
    path: '(root)',
    message: e.code === 'MULTIPLE_DOCS' ? 'the file holds more than one YAML document' : message,
    hint,
  };
}

/**
 * The offset of the innermost `open` bracket still unclosed at `end`, or -1. Comments are
 * skipped, and quotes that open a value (after a space, ":", ",", "[", "{" or "-", or
 * anywhere inside brackets), so that an apostrophe in plain text is not taken for one.
 */
function unclosedBracket(text: string, end: number, open: '{' | '['): number {
  const stack: { c: string; at: number }[] = [];
  let quote: string | null = null;
  for (let i = 0; i < Math.min(end, text.length); i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote || c === '\n') quote = null;
      continue;
    }
    if (c === '#' && (i === 0 || /\s/.test(text[i - 1] ?? ''))) {
      const nl = text.indexOf('\n', i);
      if (nl < 0) break;
      i = nl;
    } else if ((c === '"' || c === "'") && (stack.length > 0 || /[\s:,[{-]/.test(text[i - 1] ?? ' '))) quote = c;
    else if (c === '[' || c === '{') stack.push({ c, at: i });
    else if (c === ']' || c === '}') stack.pop();
  }
  for (let k = stack.length - 1; k >= 0; k--) if (stack[k]?.c === open) return stack[k]?.at ?? -1;
  return -1;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
