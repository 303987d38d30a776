/**
 * YAML (and JSON, which is YAML) text parsed with its source positions kept, so
 * every later problem can say `file:line:col`. Abuse is refused up front: files
 * over 2 MiB, alias bombs, nesting deep enough to exhaust the stack.
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
  visit,
  type Document,
  type Node,
  type YAMLError,
} from 'yaml';
import type { Problem, Result } from '../errors.ts';

export const MAX_SOURCE_BYTES = 2 * 1024 * 1024;
/** Alias expansions allowed per file: enough for real reuse, far too few for a billion laughs. */
export const MAX_ALIAS_COUNT = 100;

export type FieldPath = readonly (string | number)[];

export interface Pos {
  line: number;
  col: number;
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
export const MAX_SYNTAX_PROBLEMS = 50;
/** Flow collections (`[`, `{`) nested deeper than this are refused before parsing. */
export const MAX_FLOW_DEPTH = 256;

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

/**
 * Parses YAML or JSON text, keeping positions.
 *
 * @example
 * const r = parseYamlSource('id: tiny\ntools: []\n', 'tiny.yaml');
 * if (r.ok) r.value.locate(['tools']); // { line: 2, col: 8 }
 */
export function parseYamlSource(text: string, file: string): Result<YamlSource> {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_SOURCE_BYTES) return { ok: false, problems: [tooLargeProblem(file, bytes)] };

  // The parser recurses per nesting level and reports every unclosed bracket: a file of
  // brackets exhausts memory before it fails, so measure the depth first.
  const deep = flowDepthOffset(text);
  if (deep >= 0) {
    const line = text.slice(0, deep).split('\n').length;
    const col = deep - text.lastIndexOf('\n', deep - 1);
    return {
      ok: false,
      problems: [
        {
          code: 'yaml_limit',
          file,
          line,
          col,
          path: '(root)',
          message: `brackets are nested more than ${MAX_FLOW_DEPTH} deep`,
          hint: 'reduce the nesting depth',
        },
      ],
    };
  }

  const lineCounter = new LineCounter();
  const pos = (offset: number): Pos => {
    const p = lineCounter.linePos(Math.max(0, Math.min(offset, text.length)));
    return { line: Math.max(1, p.line), col: Math.max(1, p.col) };
  };
  const problem = (code: Problem['code'], offset: number, message: string, hint?: string): Problem => ({
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
    doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  } catch (e) {
    // The parser recurses per nesting level; absurd nesting exhausts the stack.
    return { ok: false, problems: [problem('yaml_limit', 0, `the YAML cannot be parsed: ${errorText(e)}`, 'reduce the nesting depth')] };
  }

  if (doc.errors.length > 0) {
    const problems = doc.errors.slice(0, MAX_SYNTAX_PROBLEMS).map((e) => syntaxProblem(e, file, pos));
    const more = doc.errors.length - problems.length;
    if (more > 0) {
      const last = problems[problems.length - 1];
      if (last) last.message += ` (and ${more} more syntax errors after this one)`;
    }
    return { ok: false, problems };
  }

  // A flow mapping used as a key is almost always an unquoted `{{template}}`.
  const keyProblems: Problem[] = [];
  visit(doc, {
    Pair(_, pair, path) {
      if (isCollection(pair.key)) {
        // Point at the mapping that holds the key: where the unquoted "{{" starts.
        const holder = path[path.length - 1] as Node | undefined;
        const at = holder?.range?.[0] ?? (pair.key as Node).range?.[0] ?? 0;
        keyProblems.push(
          problem('yaml_syntax', at, 'a mapping is used as a key', `a value that starts with "{{" must be quoted: "{{args.x}}"`),
        );
      }
    },
  });
  if (keyProblems.length > 0) return { ok: false, problems: keyProblems };

  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    if (!/alias/i.test(errorText(e))) {
      return { ok: false, problems: [problem('yaml_syntax', 0, `the YAML cannot be read: ${errorText(e)}`)] };
    }
    let at = 0;
    visit(doc, {
      Alias(_, node) {
        at = node.range?.[0] ?? 0;
        return visit.BREAK;
      },
    });
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
    ok: true,
    value: {
      file,
      text,
      value,
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
    },
  };
}

/** The offset where flow nesting first exceeds MAX_FLOW_DEPTH, or -1. Quotes and comments are skipped. */
function flowDepthOffset(text: string): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
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
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') {
      if (++depth > MAX_FLOW_DEPTH) return i;
    } else if ((c === ']' || c === '}') && depth > 0) depth--;
    else if (c === '\n' && depth === 0) quote = null;
  }
  return -1;
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

function syntaxProblem(e: YAMLError, file: string, pos: (offset: number) => Pos): Problem {
  const at = e.linePos?.[0] ?? pos(e.pos[0]);
  // prettyErrors appends " at line L, column C:" and a source excerpt; the position is reported separately.
  const message = e.message.split(/ at line \d+, column \d+/)[0]?.trim() || e.message;
  if (/call stack/i.test(message)) {
    return { code: 'yaml_limit', file, line: at.line, col: at.col, path: '(root)', message: 'the YAML is nested too deeply to parse', hint: 'reduce the nesting depth' };
  }
  return {
    code: 'yaml_syntax',
    file,
    line: at.line,
    col: at.col,
    path: '(root)',
    message: e.code === 'MULTIPLE_DOCS' ? 'the file holds more than one YAML document' : message,
    hint: SYNTAX_HINTS[e.code] ?? QUOTE_HINT,
  };
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
