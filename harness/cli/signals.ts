/**
 * The harness's own SIGINT and SIGTERM during an evaluation: the first stops it after the runs in
 * flight (what finished is kept and written, marked interrupted), the second ends the process at
 * once. Either way the exit status says so, 130 (SIGINT) or 143 (SIGTERM), never 0: a gate that
 * was configured cannot pass an evaluation that did not run to its end. Planner code cannot send
 * these: it runs in processes of its own, which may signal only themselves (docs/seal.md).
 *
 * `eval --watch`, while it waits for changes between evaluations, has nothing to interrupt: there
 * Ctrl-C is the user saying they are done watching, and the exit status is the last evaluation's
 * (`quitStatus`); SIGTERM still exits 143.
 */
type Signal = 'SIGINT' | 'SIGTERM';
const EXIT: Record<Signal, number> = { SIGINT: 130, SIGTERM: 143 };

export interface Interruption {
  /** Whether a signal asked the evaluation to stop. */
  readonly stopping: boolean;
  /** The exit status: 130 or 143 after a signal; 1 for an evaluation interrupted otherwise while gates are set (never 0). */
  exitCode(code: number, o: { interrupted: boolean; gated: boolean }): number;
  /**
   * Watch mode, while it waits for changes: until the returned function is called, a signal calls
   * `quit` with it (there is no evaluation to stop) instead of stopping the next evaluation.
   */
  waiting(quit: (signal: Signal) => void): () => void;
  /** Does what the signal does: for a Ctrl-C read as a key (a terminal in raw mode sends no SIGINT). */
  raise(signal: Signal): void;
  /** Stops listening (the process's default handling comes back). */
  dispose(): void;
}

/**
 * The exit status of watch mode ended by a signal while it waited: Ctrl-C (SIGINT) is how the user
 * stops watching, so it is the last evaluation's status (its gates, 0 when they pass); SIGTERM is 143.
 */
export function quitStatus(signal: Signal, last: number): number {
  return signal === 'SIGINT' ? last : EXIT[signal];
}

/**
 * Listens for SIGINT and SIGTERM until `dispose`; `say` tells the user the evaluation is stopping,
 * and `stop` (the evaluation's signal, harness/features/pipeline/evaluation.ts) is aborted.
 *
 * @example
 * const signals = watchSignals((m) => io.stderr.write(m));
 * // ... evaluate with shouldStop: () => signals.stopping, or the signal of the `stop` given ...
 * return signals.exitCode(gateFailures > 0 ? 1 : 0, { interrupted: results.interrupted, gated: gates.length > 0 });
 */
export function watchSignals(say: (message: string) => void, stop?: AbortController): Interruption {
  let got: Signal | undefined;
  let idle: ((signal: Signal) => void) | undefined;
  const handle = (signal: Signal) => {
    if (idle) return idle(signal);
    if (got) process.exit(EXIT[signal]);
    got = signal;
    stop?.abort(signal);
    say(
      `\noneway: ${signal}: stopping after the runs in flight (${signal === 'SIGINT' ? 'Ctrl-C' : 'SIGTERM'} again to quit now)\n`,
    );
  };
  const handlers = { SIGINT: () => handle('SIGINT'), SIGTERM: () => handle('SIGTERM') };
  process.on('SIGINT', handlers.SIGINT);
  process.on('SIGTERM', handlers.SIGTERM);
  return {
    get stopping() {
      return got !== undefined;
    },
    exitCode(code, o) {
      if (got) return EXIT[got];
      return o.interrupted && o.gated && code === 0 ? 1 : code;
    },
    waiting(quit) {
      idle = quit;
      return () => {
        if (idle === quit) idle = undefined;
      };
    },
    raise: handle,
    dispose() {
      process.off('SIGINT', handlers.SIGINT);
      process.off('SIGTERM', handlers.SIGTERM);
    },
  };
}
