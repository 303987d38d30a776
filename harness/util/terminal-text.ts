/**
 * Text from scenarios, planners and agents, made safe for one console line.
 *
 * Untrusted text can carry terminal escape sequences (an OSC 52 clipboard
 * write, a screen clear, a hyperlink) and, in GitHub Actions, workflow
 * commands: any output line that starts with `::` (after whitespace) is
 * executed by the runner (`::error`, `::add-mask::`, `::set-output`, ...), as
 * is the legacy form `##[command]`.
 * `terminalText` shows every C0 and C1 control character, DEL, the Unicode
 * line and paragraph separators and the bidirectional overrides as a visible
 * escape (`\x1b`, `\n`, `\u009b`), so untrusted text never starts a new line,
 * and escapes a leading `::` as `\x3a:` (and `##[` as `\x23#[`), so it cannot
 * begin a workflow command where it opens a line either. Apply it to each untrusted piece before our
 * own colouring: chalk's sequences around it stay intact.
 */

/** C0, DEL, C1, U+2028/2029 and the bidi embeddings, overrides and isolates. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
/** `::` or `##[` at the start, after any whitespace (the runner trims a line before it looks for a command). */
const LEADING_COMMAND = /^(\s*)(?:(:)(?=:)|(#)(?=#\[))/;
const COMMAND_LINES = /^([^\S\n]*)(?:(:)(?=:)|(#)(?=#\[))/gm;
const escapeLead = (_: string, space: string, colon: string | undefined) => `${space}${colon ? '\\x3a' : '\\x23'}`;

function escapeChar(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.charCodeAt(0);
  return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One untrusted value, safe to print on a console line (see the module comment). */
export function terminalText(s: string): string {
  const out = s.replace(UNSAFE, escapeChar);
  return out.replace(LEADING_COMMAND, escapeLead);
}

/**
 * A copy of a value with every string in it (object keys too) passed through
 * `terminalText`: for renderers that print many fields of untrusted data, such
 * as the results table or the recovery checklist.
 */
export function terminalSafeDeep<T>(value: T): T {
  return deep(value, 0) as T;
}

function deep(v: unknown, depth: number): unknown {
  if (typeof v === 'string') return terminalText(v);
  if (v === null || typeof v !== 'object' || depth > 64) return v;
  if (Array.isArray(v)) return v.map((x) => deep(x, depth + 1));
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return v;
  // Object.fromEntries defines own properties, so a "__proto__" key stays a plain key.
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [terminalText(k), deep(x, depth + 1)]));
}

/**
 * A workflow-command line's safety net: every line of `text` that would start a
 * GitHub Actions command gets its first `:` escaped. For whole blocks of text
 * whose lines may begin with untrusted content.
 */
export function neutraliseCommands(text: string): string {
  return text.replace(COMMAND_LINES, escapeLead);
}
