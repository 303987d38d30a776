/**
 * harness/cli/signals.ts in process: while watch mode waits, a signal (or Ctrl-C read as a key)
 * quits watching instead of stopping an evaluation, with the last evaluation's status for SIGINT
 * and 143 for SIGTERM; once it no longer waits, the evaluation rule holds again (stop, 130).
 * (A real SIGINT to the command: test/cli/watch.test.ts and test/reliability/interrupt.test.ts.)
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { quitStatus, watchSignals, type Interruption } from '../../harness/cli/signals.ts';

let signals: Interruption | undefined;
afterEach(() => signals?.dispose());

describe('signals while watch mode waits', () => {
  it('a Ctrl-C while waiting quits watching; after the wait, it stops the evaluation (130)', () => {
    const said: string[] = [];
    signals = watchSignals((m) => said.push(m));
    const quit = vi.fn();
    const stopWaiting = signals.waiting(quit);
    signals.raise('SIGINT');
    expect(quit).toHaveBeenCalledWith('SIGINT');
    expect(signals.stopping).toBe(false);
    expect(said).toEqual([]);

    stopWaiting();
    signals.raise('SIGINT');
    expect(quit).toHaveBeenCalledTimes(1);
    expect(signals.stopping).toBe(true);
    expect(said.join('')).toContain('stopping after the runs in flight');
    expect(signals.exitCode(0, { interrupted: true, gated: false })).toBe(130);
  });

  it("a signal aborts the evaluation's AbortSignal (the pipeline's stop), not one while watch mode waits", () => {
    const stop = new AbortController();
    signals = watchSignals(() => {}, stop);
    const stopWaiting = signals.waiting(() => {});
    signals.raise('SIGTERM');
    expect(stop.signal.aborted).toBe(false);
    stopWaiting();
    signals.raise('SIGTERM');
    expect(stop.signal.aborted).toBe(true);
    expect(stop.signal.reason).toBe('SIGTERM');
    expect(signals.exitCode(0, { interrupted: true, gated: false })).toBe(143);
  });

  it('quitting by Ctrl-C is the last evaluation status; by SIGTERM, 143', () => {
    expect(quitStatus('SIGINT', 0)).toBe(0);
    expect(quitStatus('SIGINT', 1)).toBe(1);
    expect(quitStatus('SIGINT', 2)).toBe(2);
    expect(quitStatus('SIGTERM', 0)).toBe(143);
  });
});
