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
