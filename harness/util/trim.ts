/**
 * Trimming runs of given characters, in linear time. (`/x+$/` and `/^x+|x+$/g` backtrack
 * quadratically on a long run of `x` that is not at the end: V8 retries the run from every
 * position in it.)
 *
 * @example
 * trimRuns('__a_b__', '_')        // 'a_b'
 * trimRuns('http://h/v1//', '/', 'end') // 'http://h/v1'
 */
export function trimRuns(text: string, chars: string, side: 'both' | 'start' | 'end' = 'both'): string {
  let start = 0;
  let end = text.length;
  if (side !== 'end') while (start < end && chars.includes(text[start] as string)) start++;
  if (side !== 'start') while (end > start && chars.includes(text[end - 1] as string)) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}
