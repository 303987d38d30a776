/**
 * cutText (harness/util/cut-text.ts): what a run keeps of a long text a planner sent. The copy it
 * makes (a slice would keep the whole text alive: 50 excerpts of 10 MB messages held 687 MiB of
 * heap, their copies 19 MiB, measured with --expose-gc) is not observable here; what it answers is.
 */
import { describe, expect, it } from 'vitest';
import { cutText } from '../../harness/util/cut-text.ts';

describe('cutText', () => {
  it('keeps a short text as it is, and cuts a long one to its first characters and the note', () => {
    expect(cutText('abc', 3, '...')).toBe('abc');
    expect(cutText('abcdef', 3, '...')).toBe('abc...');
    expect(cutText('x'.repeat(5_000_000), 2000)).toBe('x'.repeat(2000));
  });

  it('keeps what a slice keeps: a surrogate pair cut in half, control characters', () => {
    expect(cutText('a\u{1F600}b', 2)).toBe('a\ud83d');
    expect(cutText('\u0000\u001b[2J and more', 5, '!')).toBe('\u0000\u001b[2J!');
  });
});
