/**
 * A run's record file (record/writer.ts, openFileSink): made off the main thread by default, at once
 * when the caller runs one run at a time (a serial evaluation). Both ways make the directory, write
 * each event as a line, make a directory removed since again, and fail the same way, as a rejection.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import type { EscapeEvent } from '../../harness/core/record.ts';
import { openFileSink } from '../../harness/engine/record/writer.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

const event = (n: number): EscapeEvent => ({
  type: 'escape',
  t_ms: n,
  method: 'GET',
  url: `http://x/${n}`,
  reason: 'r',
});
const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as EscapeEvent);

describe.each([
  ['off the main thread', false],
  ['at once', true],
])('a record file made %s', (_, sync) => {
  it('makes its directory, writes one line per event as it goes, and a directory removed since is made again', async () => {
    const dir = join(tempDir(), 'runs', 'scenario-a');
    const sink = await openFileSink(join(dir, 'p-t1.jsonl'), { sync });
    sink.write(event(1));
    // Written through: on disk before the sink is closed.
    expect(lines(join(dir, 'p-t1.jsonl'))).toEqual([event(1)]);
    sink.write(event(2));
    sink.close();
    sink.write(event(3)); // after close: dropped, not thrown
    expect(lines(join(dir, 'p-t1.jsonl'))).toEqual([event(1), event(2)]);

    rmSync(dir, { recursive: true });
    const again = await openFileSink(join(dir, 'p-t2.jsonl'), { sync });
    again.write(event(4));
    again.close();
    expect(lines(join(dir, 'p-t2.jsonl'))).toEqual([event(4)]);
  });

  it('a directory that cannot be made rejects with the cause (not a throw)', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'runs'), 'a file where a directory goes\n');
    const opened = openFileSink(join(root, 'runs', 'scenario-a', 'p-t1.jsonl'), { sync });
    expect(opened).toBeInstanceOf(Promise);
    await expect(opened).rejects.toMatchObject({ code: expect.stringMatching(/^(ENOTDIR|EEXIST)$/) });
  });
});

describe('records in an evaluation', () => {
  it('a file made at once (as a serial evaluation makes them) is ready without waiting on the event loop', async () => {
    // Nothing goes to libuv's pool: the sink is ready before the loop turns once.
    let turned = false;
    setImmediate(() => (turned = true));
    const sink = await openFileSink(join(tempDir(), 'runs', 's', 'p-t1.jsonl'), { sync: true });
    expect(turned).toBe(false);
    sink.close();
  });

  it.each([1, 3])(
    'at --concurrency=%i, a record directory that cannot be made is the user error, with the path and the cause',
    async (concurrency) => {
      const out = tempDir();
      mkdirSync(join(out, 'runs'), { recursive: true });
      writeFileSync(join(out, 'runs', 'invoice-and-notify'), 'in the way\n');
      const r = await runCli(main, [
        '--planner=gated',
        '--scenario=invoice-and-notify',
        '--trials=3',
        `--concurrency=${concurrency}`,
        `--out=${out}`,
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`cannot write ${join(out, 'runs', 'invoice-and-notify', 'gated-t')}`);
      expect(r.stderr).toMatch(/a part of the path is a file, not a directory \(ENOTDIR\)|\(EEXIST\)/);
      expect(r.stderr).not.toContain('internal error');
    },
    60_000,
  );
});
