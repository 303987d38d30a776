/**
 * "Did you mean ...?" suggestions for misspelt names: a candidate is close when
 * its edit distance (with adjacent swaps) is at most 2, case-insensitive and shorter than both words,
 * or when one of the two is a prefix of the other (`irrev` → `irreversible`, `compensating` → `compensating_operation`).
 */

/**
 * Edit distance: insertions, deletions, substitutions, and swaps of two adjacent letters
 * (the commonest typo, `taks` for `task`), each costing 1 (optimal string alignment).
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row[j] = j;
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const up = rows[i - 1] as number[];
      let d = Math.min((up[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (up[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] ?? 0) + 1);
      row[j] = d;
    }
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] ?? 0;
}

/** Names longer than this get no typo suggestions (only prefix ones): the distance table is quadratic. */
const MAX_TYPO_LENGTH = 128;

/**
 * The candidates close to `word`, best first (smallest distance, then prefix matches; among equals, the
 * nearest in length, then name order).
 *
 * @example
 * suggestions('revers', ['reversible', 'compensable', 'irreversible']) // ['reversible']
 */
export function suggestions(word: string, candidates: Iterable<string>, max = 3): string[] {
  const w = word.toLowerCase();
  // Only distances up to 2 count, and a distance is at least the difference in length: the quadratic
  // table is built only for words of about the same length, and none for names too long to be typed.
  const typo = (lc: string) =>
    w.length <= MAX_TYPO_LENGTH && lc.length <= MAX_TYPO_LENGTH && Math.abs(w.length - lc.length) <= 2;
  const scored: { c: string; score: number }[] = [];
  for (const c of new Set(candidates)) {
    if (c === word) continue;
    const lc = c.toLowerCase();
    const d = typo(lc) ? editDistance(w, lc) : Infinity;
    // A prefix match only counts when the shared part is long enough to say something.
    const prefix = Math.min(w.length, lc.length) >= 3 && (lc.startsWith(w) || w.startsWith(lc));
    // A distance as long as the shorter word is a different word, not a typo ("cc" vs "to").
    if (d <= 2 && d < Math.min(w.length, lc.length)) scored.push({ c, score: d });
    else if (prefix) scored.push({ c, score: 3 });
  }
  // Equally close: the one nearer the word's length first (`premature_irreversible` is more likely
  // `premature_irreversible_rate` than `premature_irreversible_per_100`), then name order.
  const off = (c: string) => Math.abs(c.length - word.length);
  scored.sort((x, y) => x.score - y.score || off(x.c) - off(y.c) || (x.c < y.c ? -1 : x.c > y.c ? 1 : 0));
  return scored.slice(0, max).map((s) => s.c);
}

/**
 * The single closest candidate, or undefined when nothing is close.
 *
 * @example
 * suggest('irreversable', ['reversible', 'compensable', 'irreversible']) // 'irreversible'
 */
export function suggest(word: string, candidates: Iterable<string>): string | undefined {
  return suggestions(word, candidates, 1)[0];
}

/**
 * A hint sentence for a misspelt name, or undefined when nothing is close.
 *
 * @example
 * didYouMean('send_emial', ['send_email', 'verify_recipient']) // 'did you mean "send_email"?'
 */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  const s = suggestions(word, candidates);
  if (s.length === 0) return undefined;
  return `did you mean ${s.map((x) => `"${x}"`).join(' or ')}?`;
}

/** Joins a hint from parts, skipping empty ones. */
export function joinHints(...parts: (string | undefined)[]): string | undefined {
  const kept = parts.filter((p): p is string => !!p && p.length > 0);
  if (kept.length === 0) return undefined;
  // A question reads as its own sentence; other parts are joined as clauses.
  return kept.reduce((acc, p) => (/[?.]$/.test(acc) ? `${acc} ${p}` : `${acc}; ${p}`));
}
