/**
 * A journal line is written whole and synced before its call is forwarded: a short or failed write
 * (a full disk) refuses the call, nothing reaches the server, and `oneway recover` lists the line it
 * cannot read instead of skipping it. Tried with an injected writer that writes short, and on a
 * real full disk (a small tmpfs, mounted as root; skipped, saying why, where mounting is refused).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, fsyncSync, mkdirSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as recover } from '../../harness/cli/recover.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import {
  MISBEHAVING_SERVER,
  MISBEHAVING_TOOLS,
  nodeServer,
  textOf,
  toolsAt,
  useGuard,
  type InProcessGuard,
} from './helpers.ts';

const startGuard = useGuard();

/** The calls that reached the misbehaving server (it appends each to calls.jsonl in its state directory). */
const reached = (dir: string): string[] =>
  existsSync(join(dir, 'calls.jsonl'))
    ? readFileSync(join(dir, 'calls.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { name: string }).name)
    : [];

describe('a journal write that does not reach the disk whole', () => {
  it('refuses the call when a write comes out short, and recover lists the cut line', async () => {
    const dir = tempDir('oneway-journal-short-');
    const journal = join(dir, 'journal.jsonl');
    let short = false;
    const guard = await startGuard({
      tools: toolsAt(MISBEHAVING_TOOLS),
      toolsFile: MISBEHAVING_TOOLS,
      target: nodeServer(MISBEHAVING_SERVER, [dir]),
      journal,
      // A disk that takes one byte of each line once it is full.
      writer: { write: (fd, data) => (short ? writeSync(fd, data, 0, 1) : writeSync(fd, data)), sync: fsyncSync },
    });
    expect((await guard.client.callTool({ name: 'echo', arguments: { text: 'hi' } })).isError).toBeFalsy();
    short = true;
    const charge = await guard.client.callTool({ name: 'charge', arguments: { to: 'bob', amount: 5 } });
    expect(charge.isError).toBe(true);
    expect(textOf(charge)).toMatch(/^refused by oneway guard: the journal .* cannot be written: only 1 of \d+ bytes/);
    expect(textOf(charge)).toContain('Nothing was sent to the server.');
    expect(reached(dir)).toEqual(['echo']);
    // Every call after it is refused too: the journal is broken.
    short = false;
    const again = await guard.client.callTool({ name: 'echo', arguments: { text: 'again' } });
    expect(textOf(again)).toMatch(/^refused by oneway guard: the journal/);
    await guard.close();

    expect(readFileSync(journal, 'utf8').endsWith('\n{')).toBe(true);
    const r = await runCli(recover, [journal], process.cwd(), { NO_COLOR: '1', COLUMNS: '1000' });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('1 line of the record could not be read');
    expect(r.stdout).toMatch(/\[ \] line 3 could not be read: cut short/);
    expect(r.stdout).not.toContain('no effects to recover');
  });

  it('refuses the call when its intent cannot be synced to the disk', async () => {
    const dir = tempDir('oneway-journal-sync-');
    const guard = await startGuard({
      tools: toolsAt(MISBEHAVING_TOOLS),
      toolsFile: MISBEHAVING_TOOLS,
      target: nodeServer(MISBEHAVING_SERVER, [dir]),
      journal: join(dir, 'journal.jsonl'),
      writer: {
        write: (fd, data) => writeSync(fd, data),
        sync: () => {
          throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
        },
      },
    });
    const charge = await guard.client.callTool({ name: 'charge', arguments: { to: 'bob', amount: 5 } });
    expect(textOf(charge)).toMatch(/^refused by oneway guard: the journal .* cannot be written: EIO/);
    expect(reached(dir)).toEqual([]);
  });

  it('sends no compensation of recover --apply unjournaled: it fails, said so, and recovery goes on', async () => {
    const dir = tempDir('oneway-journal-operator-');
    let short = false;
    const guard = await startGuard({
      tools: toolsAt(MISBEHAVING_TOOLS),
      toolsFile: MISBEHAVING_TOOLS,
      target: nodeServer(MISBEHAVING_SERVER, [dir]),
      journal: join(dir, 'journal.jsonl'),
      writer: { write: (fd, data) => (short ? writeSync(fd, data, 0, 1) : writeSync(fd, data)), sync: fsyncSync },
    });
    short = true;
    const r = await guard.proxy.operatorCall('charge', { to: 'bob', amount: 5 }, 'recover');
    expect(r).toMatchObject({ ok: false, error: expect.stringMatching(/^not sent: the journal .* cannot be written/) });
    expect(reached(dir)).toEqual([]);
  });

  it('refuses the call on a full disk (a small tmpfs), and sends nothing to the server', async (ctx) => {
    const dir = tempDir('oneway-journal-full-');
    const disk = join(dir, 'disk');
    mkdirSync(disk);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', disk], { stdio: 'pipe' });
    } catch (e) {
      ctx.skip(`mounting a small tmpfs was refused (${(e as Error).message.split('\n')[0]}): needs root`);
      return;
    }
    let guard: InProcessGuard | undefined;
    try {
      const journal = join(disk, 'journal.jsonl');
      guard = await startGuard({
        tools: toolsAt(MISBEHAVING_TOOLS),
        toolsFile: MISBEHAVING_TOOLS,
        target: nodeServer(MISBEHAVING_SERVER, [dir]),
        journal,
      });
      // Fill the disk: what is left is at most the slack of the journal's last page.
      try {
        for (let i = 0; i < 64; i++) writeFileSync(join(disk, `filler-${i}`), Buffer.alloc(4096));
      } catch (e) {
        expect((e as NodeJS.ErrnoException).code).toBe('ENOSPC');
      }
      const charge = await guard.client.callTool({
        name: 'charge',
        arguments: { to: 'x'.repeat(16 * 1024), amount: 5 },
      });
      expect(textOf(charge)).toMatch(/^refused by oneway guard: the journal .* cannot be written/);
      expect(textOf(charge)).toContain('Nothing was sent to the server.');
      expect(reached(dir)).toEqual([]);
    } finally {
      await guard?.close(); // before the disk goes: the journal is on it
      execFileSync('umount', [disk]);
    }
  });
});
