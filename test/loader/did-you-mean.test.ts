import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance, suggest, suggestions } from '../../harness/util/did-you-mean.ts';

describe('did-you-mean suggestions', () => {
  it('count a swap of adjacent letters as one edit', () => {
    expect(editDistance('taks', 'task')).toBe(1);
    expect(editDistance('irreversable', 'irreversible')).toBe(1);
    expect(editDistance('abc', '')).toBe(3);
  });

  it('offer names within two edits, or sharing a prefix', () => {
    expect(suggestions('irreversable', ['reversible', 'compensable', 'irreversible'])).toEqual(['irreversible']);
    expect(suggest('compensating', ['compensating_operation', 'compensation_args'])).toBe('compensating_operation');
    expect(suggest('zzz', ['reversible'])).toBeUndefined();
  });

  it('offer, of names equally close, the one nearest in length first', () => {
    const metrics = ['premature_irreversible_per_100', 'premature_irreversible_rate'];
    expect(suggestions('premature_irreversible', metrics)).toEqual([
      'premature_irreversible_rate',
      'premature_irreversible_per_100',
    ]);
  });

  it('do not offer a different short word', () => {
    expect(suggest('cc', ['to'])).toBeUndefined();
  });

  it('read as a hint', () => {
    expect(didYouMean('send_emial', ['send_email', 'verify_recipient'])).toBe('did you mean "send_email"?');
    expect(didYouMean('x', [])).toBeUndefined();
  });
});
