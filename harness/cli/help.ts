/**
 * Help text that fits the terminal: every command's `--help` goes through `wrapHelp` at the width
 * `helpWidth` gives, so `oneway eval --help` reads in an 80-column terminal as in a wide one.
 */
import type { Io } from './common.ts';

/** The narrowest width help is wrapped to: below it, descriptions would be a word or two a line. */
const MIN_WIDTH = 60;
/** The width when neither the terminal nor COLUMNS says (a pipe, a file): the classic terminal's. */
const DEFAULT_WIDTH = 80;

/**
 * How wide help may be: the terminal's columns when stdout is one, else COLUMNS, else 80; never
 * under 60.
 */
export function helpWidth(io: Pick<Io, 'stdout' | 'env'>): number {
  const tty = (io.stdout as { columns?: number }).columns;
  const env = Number(io.env.COLUMNS);
  const cols = tty && tty > 0 ? tty : Number.isInteger(env) && env > 0 ? env : DEFAULT_WIDTH;
  return Math.max(MIN_WIDTH, cols);
}

/** A line's leading spaces. */
const indentOf = (line: string): number => line.length - line.trimStart().length;

/**
 * The description column of an option or list line (`  --out=DIR    where results go`: the column
 * after the gap of two or more spaces), or undefined for any other line.
 */
function itemColumn(line: string): number | undefined {
  const item = /^( +\S(?:\S| (?! ))*  +)\S/.exec(line);
  return item ? (item[1] as string).length : undefined;
}

/**
 * Words laid out in lines of at most `width` columns, the first after `head`, the rest after `indent`
 * spaces. A word longer than a whole line is cut (help must fit; a cut path still reads).
 */
function fill(head: string, words: string[], indent: number, width: number): string[] {
  const pad = ' '.repeat(indent);
  const room = Math.max(1, width - indent);
  const lines: string[] = [];
  let line = head;
  const push = (word: string) => {
    const sep = line === '' || line.endsWith(' ') ? '' : ' ';
    if (line.trim() !== '' && [...line].length + sep.length + [...word].length > width) {
      lines.push(line);
      line = pad;
    }
    line = `${line}${line === '' || line.endsWith(' ') ? '' : ' '}${word}`;
  };
  for (const word of words) {
    if ([...word].length <= room) push(word);
    else for (let i = 0; i < word.length; i += room) push(word.slice(i, i + room));
  }
  lines.push(line);
  return lines.map((l) => l.trimEnd());
}

/**
 * Help text wrapped to `width` columns. An option's description continues under its description
 * column, prose under its first character; a paragraph or description that already fits is left as
 * written, one that does not is reflowed as a whole (its hand-wrapped continuation lines joined first),
 * so no line is longer than `width` and none is left ragged.
 */
export function wrapHelp(text: string, width: number): string {
  const lines = text.split('\n');
  const out: string[] = [];
  // The description column of the latest option line: a line indented to it continues a description.
  let descriptions: number | undefined;
  for (let i = 0; i < lines.length;) {
    const first = lines[i] as string;
    const item = itemColumn(first);
    if (item !== undefined) descriptions = item;
    const hang = item ?? indentOf(first);
    // The block: this line and the lines that continue it. Under a description column: the lines
    // indented to it (not a new item). At the left margin: a line that starts in lower case or with
    // a parenthesis. Other indented lines (examples, lists) stand alone.
    const continues = (next: string): boolean => {
      if (next.trim() === '' || itemColumn(next) !== undefined || indentOf(next) !== hang) return false;
      if (hang === 0) return /^[a-z(]/.test(next);
      return hang === descriptions;
    };
    let end = i + 1;
    while (end < lines.length && continues(lines[end] as string)) end++;
    const block = lines.slice(i, end);
    if (block.every((l) => [...l].length <= width)) out.push(...block);
    else {
      const head = first.slice(0, hang);
      const words = block
        .map((l, j) => (j === 0 ? l.slice(hang) : l.trim()))
        .join(' ')
        .split(' ')
        .filter((w) => w !== '');
      // A term wider than the line leaves no room for its description: continue under its first character.
      out.push(...fill(head, words, hang < width - 20 ? hang : indentOf(first), width));
    }
    i = end;
  }
  return out.join('\n');
}

/** Writes a command's help to stdout, wrapped to the terminal (`helpWidth`). */
export function printHelp(io: Pick<Io, 'stdout' | 'env'>, text: string): void {
  io.stdout.write(`${wrapHelp(text, helpWidth(io))}\n`);
}
