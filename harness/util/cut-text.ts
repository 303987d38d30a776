/**
 * The first `max` characters of `text` and then `more` (all of `text` when it is no longer), as a
 * string of its own. In V8 a slice of a long string points into it and keeps the whole of it
 * alive: a 2,000-character excerpt of a 30 MB message a planner sent kept 30 MB for as long as
 * the excerpt lived (a run's error lives as long as the evaluation). What is kept of such text is
 * cut with this.
 *
 * @example
 * cutText('abcdef', 3, '...') // 'abc...'
 * cutText('abc', 3, '...') // 'abc'
 */
export function cutText(text: string, max: number, more = ''): string {
  if (text.length <= max) return text;
  // Through JSON: a new string, lone surrogates and all (a Buffer round trip would replace them).
  return JSON.parse(JSON.stringify(`${text.slice(0, max)}${more}`)) as string;
}
