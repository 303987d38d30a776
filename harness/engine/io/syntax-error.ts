/**
 * Where a user's JavaScript module (a planner file, a property module) has its syntax error. Node's
 * import of an ES module that does not parse throws `SyntaxError: Unexpected token 'return'` with no
 * file, line or column (its stack holds none either); `node --check FILE` prints them. The module
 * loads in a sealed process, which may start none: the harness asks `node --check` once the load
 * failed so, and says where. Checking only parses the file: none of its code runs.
 */
import { execFile } from 'node:child_process';
import { terminalText } from '../../util/terminal-text.ts';

/** A module file Node parses as JavaScript (TypeScript is compiled by esbuild, which locates its own errors). */
const JS_FILE = /\.(c|m)?js$/;
/** Long enough for any file that loads at all; a check that takes longer says nothing. */
const CHECK_TIMEOUT_MS = 30_000;

/** Where a syntax error is, and what it is. */
interface SyntaxErrorAt {
  file: string;
  line: number;
  /** 1-based, in characters. */
  column: number;
  message: string;
}

/**
 * Reads `node --check`'s report: `FILE:LINE`, the source line, a line of carets under the error
 * (tabs kept, so the first caret's index is the column's), then `SyntaxError: ...`.
 */
export function parseCheckOutput(stderr: string): SyntaxErrorAt | undefined {
  const lines = stderr.split('\n');
  const head = /^(.*):(\d+)$/.exec(lines[0] ?? '');
  const caret = lines.findIndex((l, i) => i >= 2 && /^[ \t]*\^/.test(l));
  const message = lines.find((l) => /^SyntaxError: /.test(l));
  if (!head || caret < 0 || !message) return undefined;
  return {
    file: head[1] as string,
    line: Number(head[2]),
    column: (lines[caret] as string).indexOf('^') + 1,
    message: message.slice(0, 500),
  };
}

/** The syntax error `node --check` finds in `file`, or undefined (none, not JavaScript, or the check could not say). */
function syntaxErrorIn(file: string): Promise<SyntaxErrorAt | undefined> {
  if (!JS_FILE.test(file)) return Promise.resolve(undefined);
  const env = { ...process.env };
  delete env.NODE_OPTIONS; // only the parse: no preloads
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--check', file],
      { env, timeout: CHECK_TIMEOUT_MS, maxBuffer: 1024 * 1024, encoding: 'utf8' },
      (error, _stdout, stderr) => resolve(error ? parseCheckOutput(stderr) : undefined),
    );
  });
}

/**
 * A load failure's message with the place of its syntax error, `FILE:LINE:COLUMN: SyntaxError: ...`,
 * when the failure is one Node gave without it; the message as it was otherwise.
 */
export async function locatedLoadError(message: string, file: string): Promise<string> {
  const at = / failed to load: SyntaxError: /.test(message) ? await syntaxErrorIn(file) : undefined;
  if (!at) return message;
  const where = `${terminalText(at.file)}:${at.line}:${at.column}`;
  return message.replace(
    / failed to load: SyntaxError: .*$/s,
    ` failed to load: ${where}: ${terminalText(at.message)}`,
  );
}
