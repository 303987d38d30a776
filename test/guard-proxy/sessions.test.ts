/**
 * One `mcpServers` entry, two client windows: two `oneway guard` processes started at once with the
 * same `--journal` both serve their client; the second writes a session journal of its own beside
 * the first (JOURNAL.d/), and `oneway recover JOURNAL` lists both; recover also takes several
 * journals or a directory, and the one reader of journals reports what it cannot read.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as recover } from '../../harness/cli/recover.ts';
import { readJournalSessions, sessionJournalDir } from '../../harness/engine/record/journals.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { DEFAULT_POLICY } from '../../harness/engine/guard/policy.ts';
import { Journal } from '../../harness/features/guard-proxy/journal.ts';
import { journalStart } from '../../harness/features/guard-proxy/proxy.ts';
import { guardCommand, MISBEHAVING_SERVER, MISBEHAVING_TOOLS, outcomes, toolsAt } from './helpers.ts';

const WIDE = { NO_COLOR: '1', COLUMNS: '1000' };

describe('guards sharing a journal path', () => {
  it('both serve their client when started at once, each journaling a session of its own', async () => {
    const dir = tempDir('oneway-guard-sessions-');
    const journal = join(dir, 'journal.jsonl');
    const args = [
      `--tools=${MISBEHAVING_TOOLS}`,
      `--journal=${journal}`,
      '--',
      process.execPath,
      MISBEHAVING_SERVER,
      dir,
    ];
    const [a, b] = await Promise.all([guardCommand(args), guardCommand(args)]);
    try {
      const [ra, rb] = await Promise.all([
        a.client.callTool({ name: 'charge', arguments: { to: 'ann', amount: 1 } }),
        b.client.callTool({ name: 'charge', arguments: { to: 'bob', amount: 2 } }),
      ]);
      expect(ra.isError).toBeFalsy();
      expect(rb.isError).toBeFalsy();
    } finally {
      await a.client.close();
      await b.client.close();
    }
    const sessions = readdirSync(sessionJournalDir(journal)).filter((n) => n.endsWith('.jsonl'));
    expect(sessions).toHaveLength(1);
    const charged = [...outcomes(journal), ...outcomes(join(sessionJournalDir(journal), sessions[0] as string))]
      .map((c) => c.args.to)
      .sort();
    expect(charged).toEqual(['ann', 'bob']);

    // recover JOURNAL reads the journal and its session journals.
    const r = await runCli(recover, [journal], process.cwd(), WIDE);
    expect(r.code).toBe(0);
    expect(r.stdout.match(/^Incident checklist: /gm)).toHaveLength(2);
    expect(r.stdout).toContain('args: to=ann');
    expect(r.stdout).toContain('args: to=bob');
    // And the directory, as JSON: one document per journal.
    const json = await runCli(recover, [sessionJournalDir(journal), '--reporter=json']);
    expect((JSON.parse(json.stdout) as { journals: { items: unknown[] }[] }).journals).toHaveLength(1);
  });
});

describe('a session journal', () => {
  it('is where a guard journals when another holds the journal, and it says so', () => {
    const dir = tempDir('oneway-guard-session-open-');
    const journal = join(dir, 'journal.jsonl');
    const tools = toolsAt(MISBEHAVING_TOOLS);
    const start = () =>
      journalStart({ scenario: tools, toolsFile: MISBEHAVING_TOOLS, facts: [], policy: DEFAULT_POLICY, upstream: 'x' });
    const said: string[] = [];
    const first = Journal.open(journal, start(), { command: 'test', shared: true });
    const second = Journal.open(journal, start(), { command: 'test', shared: true, warn: (m) => said.push(m) });
    try {
      expect(first.path).toBe(journal);
      expect(second.path.startsWith(`${sessionJournalDir(journal)}/`)).toBe(true);
      expect(said.join('\n')).toContain(
        `this session journals to ${second.path} (oneway recover ${journal} reads both)`,
      );
      // Not shared (recover --apply, --settle): the lock refuses, as before.
      expect(() => Journal.open(journal, undefined, { command: 'test', existing: true })).toThrow(
        /is in use by another/,
      );
    } finally {
      first.close();
      second.close();
    }
  });
});

describe('reading journals', () => {
  it('reads several journals and directories, and reports a file it cannot read and an empty directory', () => {
    const dir = tempDir('oneway-journals-read-');
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, 'not json\n');
    const { sessions, issues } = readJournalSessions([bad, empty, join(dir, 'missing.jsonl')]);
    expect(sessions).toEqual([]);
    expect(issues.map((i) => [i.file, i.message])).toEqual([
      [empty, 'the directory holds no .jsonl journal'],
      [bad, 'this is not a JSONL run record: the first line is not JSON'],
      [join(dir, 'missing.jsonl'), 'the record does not exist'],
    ]);
    expect(existsSync(sessionJournalDir(bad))).toBe(false);
  });

  it('refuses --apply and --settle on several journals or a directory, with a hint', async () => {
    const dir = tempDir('oneway-journals-one-');
    const r = await runCli(recover, [dir, '--settle=1=applied']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--settle takes one journal file');
  });
});
