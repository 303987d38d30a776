/** A progress bar on stderr for long evaluations: only on a terminal, quiet otherwise. */
import { SingleBar } from 'cli-progress';
import type { RunResult } from '../engine/results/types.ts';
import { terminalText } from '../util/terminal-text.ts';

export interface Progress {
  update(run: RunResult, done: number, total: number): void;
  stop(): void;
}

export function progressBar(stream: NodeJS.WritableStream & { isTTY?: boolean }): Progress | undefined {
  if (stream.isTTY !== true) return undefined;
  const bar = new SingleBar({
    stream,
    format: 'runs {bar} {value}/{total} · {eta_formatted} left · {scenario} · {planner}',
    hideCursor: true,
    clearOnComplete: true,
  });
  let started = false;
  return {
    update(run, done, total) {
      if (!started) {
        bar.start(total, 0, { scenario: '', planner: '' });
        started = true;
      }
      bar.update(done, { scenario: terminalText(run.scenario), planner: terminalText(run.planner) });
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
