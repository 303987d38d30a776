/**
 * How wide console output may be: the terminal's width when stdout is one, else COLUMNS when set,
 * else 120 in CI logs (GitHub Actions and most CI set CI) and 100 otherwise (a pipe, a file).
 */
const PIPE_WIDTH = 100;
const CI_WIDTH = 120;

export function outputWidth(
  stream: { isTTY?: boolean; columns?: number } | undefined,
  env: NodeJS.ProcessEnv = {},
): number {
  if (stream?.isTTY && stream.columns && stream.columns > 0) return stream.columns;
  const cols = Number(env.COLUMNS);
  if (Number.isInteger(cols) && cols > 0) return cols;
  return env.CI ? CI_WIDTH : PIPE_WIDTH;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** Columns a string takes on a terminal: ANSI colours removed, one per code point. */
export function visibleWidth(s: string): number {
  return [...s.replace(ANSI, '')].length;
}

/** The widest line of a block of text. */
export function blockWidth(text: string): number {
  return Math.max(0, ...text.split('\n').map(visibleWidth));
}

/** Plain text wrapped at spaces to `width` columns (a word longer than the width keeps its own line, whole). */
export function wrapText(text: string, width: number): string {
  if (!Number.isFinite(width) || visibleWidth(text) <= width) return text;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && visibleWidth(line) + 1 + visibleWidth(word) > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join('\n');
}

/**
 * Each line of a block of console text wrapped at spaces to `width` columns (ANSI colours kept and
 * not counted), its continuation lines indented by `hang(line)` spaces. A word wider than a line is
 * cut when it is plain text (a colored one keeps its line: cutting would split its escape codes).
 */
export function wrapLines(text: string, width: number, hang: (line: string) => number): string {
  if (!Number.isFinite(width)) return text;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (visibleWidth(line) <= width) {
      out.push(line);
      continue;
    }
    const lead = line.length - line.trimStart().length;
    const pad = ' '.repeat(Math.min(hang(line), width - 20));
    const room = Math.max(1, width - pad.length);
    let current = line.slice(0, lead);
    let started = false;
    const push = (word: string) => {
      if (started && visibleWidth(current) + 1 + visibleWidth(word) > width) {
        out.push(current);
        current = pad;
        started = false;
      }
      current = started ? `${current} ${word}` : `${current}${word}`;
      started = true;
    };
    for (const word of line.slice(lead).split(' ')) {
      const chars = [...word];
      if (chars.length > room && visibleWidth(word) === chars.length)
        for (let i = 0; i < chars.length; i += room) push(chars.slice(i, i + room).join(''));
      else push(word);
    }
    out.push(current);
  }
  return out.join('\n');
}
