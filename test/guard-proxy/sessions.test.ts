/**
 * One `mcpServers` entry, two client windows: two `oneway guard` processes started at once with the
 * same `--journal` both serve their client; the second writes a session journal of its own beside
 * the first (JOURNAL.d/), and `oneway recover JOURNAL` lists both; the same from a real `mcpServers`
 * entry (the guard in front of server-memory) started twice by the SDK's stdio client as a host
 * starts it, with `oneway audit` listing both sessions as well; recover also takes several
 * journals or a directory, and the one reader of journals reports what it cannot read.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { main as audit } from '../../harness/cli/audit.ts';
import { main as recover } from '../../harness/cli/recover.ts';
import type { Audit } from '../../harness/features/audit/audit.ts';
import { cli } from '../helpers/compiled.ts';
import { readJournalSessions, sessionJournalDir } from '../../harness/engine/record/journals.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { DEFAULT_POLICY } from '../../harness/engine/guard/policy.ts';
import { Journal } from '../../harness/features/guard-proxy/journal.ts';
import { journalStart } from '../../harness/features/guard-proxy/proxy.ts';
import {
  guardCommand,
  MEMORY_SERVER,
  MEMORY_TOOLS,
  MISBEHAVING_SERVER,
  MISBEHAVING_TOOLS,
  outcomes,
  textOf,
  toolsAt,
} from './helpers.ts';

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

describe('one mcpServers entry, two client windows', () => {
  it('starts two guards at once from the entry as an MCP host does; both serve, both journal, recover and audit list both sessions', async () => {
    const dir = tempDir('oneway-guard-mcpservers-');
    const journal = join(dir, 'journal.jsonl');
    // The entry as a user writes it in a client's configuration (claude_desktop_config.json,
    // .cursor/mcp.json, ...): the guard is the command, the real server-memory behind it.
    const config = join(dir, 'mcp.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          memory: {
            command: process.execPath,
            args: [
              cli('oneway'),
              'guard',
              `--tools=${MEMORY_TOOLS}`,
              `--journal=${journal}`,
              `--server-cmd="${process.execPath}" "${MEMORY_SERVER}"`,
            ],
            env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
          },
        },
      }),
    );
    // A host reads the entry and starts it over stdio, once per window, with the official SDK.
    const entry = (
      JSON.parse(readFileSync(config, 'utf8')) as {
        mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
      }
    ).mcpServers.memory!;
    const window = async (name: string) => {
      const transport = new StdioClientTransport({
        command: entry.command,
        args: entry.args,
        env: { ...(process.env as Record<string, string>), ...entry.env },
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (d: Buffer) => (stderr += String(d)));
      const client = new Client({ name, version: '1.0.0' });
      await client.connect(transport);
      return { client, stderr: () => stderr };
    };
    const [a, b] = await Promise.all([window('window-a'), window('window-b')]);
    try {
      const listed = await Promise.all([a.client.listTools(), b.client.listTools()]);
      for (const l of listed) expect(l.tools.map((t) => t.name)).toContain('create_entities');
      // One call after the other: the two server-memory processes share one memory file.
      const ra = await a.client.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: 'ann', entityType: 'person', observations: [] }] },
      });
      expect(ra.isError, textOf(ra)).toBeFalsy();
      const rb = await b.client.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: 'bob', entityType: 'person', observations: [] }] },
      });
      expect(rb.isError, textOf(rb)).toBeFalsy();
      // The one that found the journal in use said where it journals instead.
      expect(a.stderr() + b.stderr()).toContain(`(oneway recover ${journal} reads both)`);
    } finally {
      await a.client.close();
      await b.client.close();
    }
    const sessions = readdirSync(sessionJournalDir(journal)).filter((n) => n.endsWith('.jsonl'));
    expect(sessions).toHaveLength(1);
    const second = join(sessionJournalDir(journal), sessions[0] as string);
    const created = [...outcomes(journal), ...outcomes(second)].map((c) => [
      c.tool,
      c.status,
      (c.args.entities as { name: string }[])[0]?.name,
    ]);
    expect(created.sort()).toEqual([
      ['create_entities', 'ok', 'ann'],
      ['create_entities', 'ok', 'bob'],
    ]);

    const r = await runCli(recover, [journal], process.cwd(), WIDE);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.match(/^Incident checklist: /gm)).toHaveLength(2);
    expect(r.stdout).toContain('delete_entities({"entityNames":["ann"]})');
    expect(r.stdout).toContain('delete_entities({"entityNames":["bob"]})');

    const audited = await runCli(audit, [journal, '--reporter=json']);
    expect(audited.code, audited.stderr).toBe(0);
    const report = JSON.parse(audited.stdout) as Audit;
    expect(report.journals).toHaveLength(2);
    expect(report.sessions.map((s) => s.calls)).toEqual([1, 1]);
    expect(new Set(report.sessions.map((s) => s.session)).size).toBe(2);
    expect(report.total).toMatchObject({ calls: 2, blocked: 0 });
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

describe('a journal in a directory not made yet', () => {
  it('is made with its directory when a guard starts; recover --settle on it is a usage error, never an internal one', async () => {
    const dir = tempDir('oneway-guard-journal-dir-');
    const journal = join(dir, 'journals', 'memory.jsonl');
    const settle = await runCli(recover, [journal, '--settle=1=applied']);
    expect(settle.code).toBe(2);
    expect(settle.stderr).toContain(`${journal} is empty or does not exist`);
    expect(settle.stderr).not.toContain('internal error');
    const tools = toolsAt(MISBEHAVING_TOOLS);
    const opened = Journal.open(
      journal,
      journalStart({ scenario: tools, toolsFile: MISBEHAVING_TOOLS, facts: [], policy: DEFAULT_POLICY, upstream: 'x' }),
      { command: 'test', shared: true },
    );
    opened.close();
    expect(readFileSync(journal, 'utf8')).toMatch(/^\{"type":"run_start"/);
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
