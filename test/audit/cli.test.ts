/**
 * `oneway audit JOURNAL|DIR...`: the journals of a guard observing the real server-filesystem,
 * two client sessions in one journal and a second journal in a directory, scored per session and
 * per tool; the reporters (table, json, markdown, html) with journal text escaped for each;
 * `--fail-on` gates with eval's syntax (a `TOOL:` prefix for one tool); unreadable journals
 * reported while the rest is audited.
 */
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as audit } from '../../harness/cli/audit.ts';
import { run } from '../../harness/cli/program.ts';
import type { Audit } from '../../harness/features/audit/audit.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { FILESYSTEM_SERVER, FILESYSTEM_TOOLS, guardInProcess, nodeServer, toolsAt } from '../guard-proxy/helpers.ts';

/**
 * Journals of an observing guard in front of server-filesystem: in `dir/journals/a.jsonl`, one
 * session overwrites a file blindly (premature irreversible), the other reads first, then writes two
 * files at once (parallel irreversible); in `dir/journals/more/b.jsonl`, one blind write.
 */
async function journals(): Promise<{ dir: string; a: string; b: string }> {
  const dir = realpathSync(tempDir('oneway-audit-'));
  const root = join(dir, 'files');
  mkdirSync(root);
  mkdirSync(join(dir, 'journals', 'more'), { recursive: true });
  const x = join(root, 'x.txt');
  const y = join(root, 'y.txt');
  writeFileSync(x, 'x');
  writeFileSync(y, 'y');
  const a = join(dir, 'journals', 'a.jsonl');
  const b = join(dir, 'journals', 'more', 'b.jsonl');
  const tools = toolsAt(FILESYSTEM_TOOLS);
  const first = await guardInProcess({
    tools,
    target: nodeServer(FILESYSTEM_SERVER, [root]),
    journal: a,
    observe: true,
  });
  try {
    await first.client.callTool({ name: 'write_file', arguments: { path: x, content: 'blind' } });
    const second = await first.session();
    await second.callTool({ name: 'read_text_file', arguments: { path: x } });
    await Promise.all([
      second.callTool({ name: 'write_file', arguments: { path: x, content: 'one' } }),
      second.callTool({ name: 'write_file', arguments: { path: y, content: 'two' } }),
    ]);
  } finally {
    await first.close();
  }
  const other = await guardInProcess({
    tools,
    target: nodeServer(FILESYSTEM_SERVER, [root]),
    journal: b,
    observe: true,
  });
  try {
    await other.client.callTool({ name: 'write_file', arguments: { path: y, content: 'blind again' } });
  } finally {
    await other.close();
  }
  return { dir, a, b };
}

const json = async (args: string[], cwd: string) => {
  const r = await runCli(audit, [...args, '--reporter=json'], cwd);
  return { ...r, audit: JSON.parse(r.stdout) as Audit & { gates: { failed: { message: string }[] } } };
};

describe('oneway audit', () => {
  it('scores each session of each journal under a directory, per tool and in total', async () => {
    const { dir } = await journals();
    const r = await json(['journals'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.audit.journals).toEqual(['journals/a.jsonl', 'journals/more/b.jsonl']);
    const rows = r.audit.sessions.map((s) => [
      s.journal,
      s.observe,
      s.calls,
      s.premature.irreversible,
      s.parallel_irreversible,
      s.would_refuse,
    ]);
    expect(rows).toEqual([
      ['journals/a.jsonl', true, 1, 1, 0, 1],
      // Read, then two writes at once: the read made the write of x ready, not of y; both parallel.
      ['journals/a.jsonl', true, 3, 1, 2, 2],
      ['journals/more/b.jsonl', true, 1, 1, 0, 1],
    ]);
    expect(new Set(r.audit.sessions.map((s) => s.session)).size).toBe(3);
    expect(r.audit.tools.map((t) => [t.tool, t.class, t.calls, t.premature.irreversible, t.would_refuse])).toEqual([
      ['read_text_file', 'reversible', 1, 0, 0],
      ['write_file', 'irreversible', 4, 3, 4],
    ]);
    expect(r.audit.total).toMatchObject({ calls: 5, irreversible_calls: 4, parallel_irreversible: 2, blocked: 0 });
    // The same journals given as files: the same figures.
    const files = await json(['journals/a.jsonl', 'journals/more/b.jsonl'], dir);
    expect(files.audit.total).toEqual(r.audit.total);
  });

  it('prints a table, writes markdown and html with --out, through the oneway command', async () => {
    const { dir } = await journals();
    const r = await runCli(
      (argv, io) => run(['audit', ...argv], io),
      ['journals', '--reporter=table,markdown,html,json', '--out=report'],
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('3 sessions in 2 journals');
    expect(r.stdout).toMatch(/write_file \(irreversible\)/);
    const md = readFileSync(join(dir, 'report', 'audit.md'), 'utf8');
    expect(md).toContain('### Per tool');
    expect(md).toMatch(/\| write\\_file \(irreversible\) \| 4 \| 3 \|/);
    const html = readFileSync(join(dir, 'report', 'audit.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<td>write_file (irreversible)</td><td class="n">4</td>');
    expect(JSON.parse(readFileSync(join(dir, 'report', 'audit.json'), 'utf8')).total.calls).toBe(5);
  });

  it('--fail-on gates with eval syntax: over the total, and TOOL: for one tool; a failed gate exits 1', async () => {
    const { dir } = await journals();
    const failed = await json(
      ['journals', '--fail-on=premature_irreversible>0', '--fail-on=read_text_file:calls>1'],
      dir,
    );
    expect(failed.code).toBe(1);
    expect(failed.audit.gates.failed.map((f) => f.message)).toEqual([
      'gate failed: premature_irreversible = 3 (fails when > 0)',
    ]);
    expect(failed.stderr).toContain('gate failed: premature_irreversible = 3 (fails when > 0)');
    const tool = await json(['journals', '--fail-on=write_file:parallel_irreversible>=2'], dir);
    expect(tool.code).toBe(1);
    expect(tool.stderr).toContain('gate failed: write_file parallel_irreversible = 2 (fails when >= 2)');
    const held = await json(['journals', '--fail-on=unreconciled_retries>0', '--fail-on=blocked>0'], dir);
    expect(held.code).toBe(0);
    const typo = await runCli(audit, ['journals', '--fail-on=premature_irreversable>0'], dir);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown metric "premature_irreversable"');
    expect(typo.stderr).toContain('did you mean premature_irreversible');
    const reporter = await runCli(audit, ['journals', '--reporter=htm'], dir);
    expect(reporter.code).toBe(2);
    expect(reporter.stderr).toContain('did you mean html');
  });

  it('reports an unreadable journal, audits the rest, and exits 2; hostile names are escaped in every reporter', async () => {
    const dir = realpathSync(tempDir('oneway-audit-'));
    mkdirSync(join(dir, 'j'));
    writeFileSync(join(dir, 'j', 'notes.jsonl'), 'not a record\n');
    const evil = '<img src=x onerror=alert(1)>\u001b]52;c;x\u0007|*';
    const start = {
      type: 'run_start',
      schema_version: 2,
      run_id: 'r1',
      scenario: 'x',
      scenario_file: 'x.yaml',
      planner: 'oneway guard',
      trial: 1,
      seed: 0,
      deployment: {},
      max_steps: 0,
      guard: true,
      tools: [],
      initial_world: { facts: [], tables: {} },
      journal: { started_at: '2026-01-01T00:00:00.000Z', upstream: 'x', policy: {}, observe: true },
    };
    const call = {
      type: 'call',
      step: 1,
      turn: 1,
      batch: 1,
      pos: 0,
      batch_size: 1,
      t_ms: 0,
      latency_ms: 0,
      tool: evil,
      args: {},
      class: 'irreversible',
      read_only: false,
      kind: 'action',
      preconditions: { held: [], missing: [] },
      establishes: [],
      status: 'ok',
      http_status: null,
      applied: true,
      ambiguous: false,
      result: null,
      error: null,
      effect_id: null,
      effects: [],
      compensation: null,
      would: { decision: 'refuse', reason: 'not declared', missing: [] },
      session: 's1',
    };
    writeFileSync(join(dir, 'j', 'evil.jsonl'), `${JSON.stringify(start)}\n${JSON.stringify(call)}\n`);
    const r = await runCli(audit, ['j', '--reporter=table,markdown,html'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('j/notes.jsonl:1: error: this is not a JSONL run record');
    expect(r.stdout).toContain('1 session in 1 journal');
    expect(r.stdout).not.toContain('\u001b]52');
    expect(r.stdout).toContain('\\x1b]52');
    const [console_, html] = r.stdout.split('<!doctype html>') as [string, string];
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    // Markdown: no markup from the name, no table cell broken by its "|".
    expect(console_).toContain('| \\<img src=x onerror=alert(1)\\>\\\\x1b\\]52;c;x\\\\x07\\|\\* (irreversible) | 1 |');
  });

  it('is a usage error without journals', async () => {
    const r = await runCli(audit, [], process.cwd());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('give the journals to audit');
  });
});
