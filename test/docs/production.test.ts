/**
 * docs/production.md's walk-through cannot drift: the commands of its "commands in short" block,
 * read from the page, run in order in a fresh directory against the real server-memory (`npx -y
 * @modelcontextprotocol/server-memory` becomes node on the installed package's bin): import, lint
 * (exit 1 until reviewed, 0 after), the guard observing (started over stdio by the SDK client as an
 * MCP host starts it), audit with its `--fail-on` gate, the guard enforcing on the same journal,
 * recover; then the audit with reporters of step 6 and recover --apply and --settle of step 8, read
 * from their sections with the page's file names mapped to the short block's.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../harness/cli/common.ts';
import { run } from '../../harness/cli/program.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { cli } from '../helpers/compiled.ts';
import { eventsOf, MEMORY_SERVER, MEMORY_TOOLS, outcomes, textOf } from '../guard-proxy/helpers.ts';

const PAGE = readFileSync(join(REPO_ROOT, 'docs/production.md'), 'utf8');

/** The fenced block of `lang` that follows `after` on the page. */
function blockAfter(after: string, lang: string): string {
  const at = PAGE.indexOf(after);
  expect(at, `production.md no longer says "${after}"`).toBeGreaterThanOrEqual(0);
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(PAGE.slice(at));
  expect(m, `no ${lang} block after "${after}"`).not.toBeNull();
  return (m as RegExpExecArray)[1] as string;
}

/** The command lines of a shell block: `\` continuations joined, comments dropped. */
const commandLines = (text: string): string[] =>
  text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.replace(/\s+#\s.*$/, '').trim())
    .filter((l) => l !== '' && !l.startsWith('#'));

/** Words as a shell splits them (quotes honoured within a word). */
const words = (line: string): string[] =>
  [...line.matchAll(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g)].map((m) => m[0].replace(/"([^"]*)"|'([^']*)'/g, '$1$2'));

const NPX_MEMORY = ['npx', '-y', '@modelcontextprotocol/server-memory'];

/** `npx oneway ARGS -- npx -y server-memory` as argv for oneway, the server as node on its bin. */
function onewayArgv(line: string): string[] {
  const w = words(line);
  expect(w.slice(0, 2), line).toEqual(['npx', 'oneway']);
  const rest = w.slice(2);
  const dashes = rest.indexOf('--');
  if (dashes < 0) return rest;
  expect(rest.slice(dashes + 1), line).toEqual(NPX_MEMORY);
  return [...rest.slice(0, dashes + 1), process.execPath, MEMORY_SERVER];
}

const before = process.env.MEMORY_FILE_PATH;
afterEach(() => {
  if (before === undefined) delete process.env.MEMORY_FILE_PATH;
  else process.env.MEMORY_FILE_PATH = before;
});

describe("docs/production.md's walk-through", () => {
  it('runs as written: import, lint, observe, audit, enforce, recover, apply, settle', async () => {
    const dir = tempDir('oneway-production-walk-');
    // The server's graph, for every server-memory this test starts (import, guards, recover).
    process.env.MEMORY_FILE_PATH = join(dir, 'memory.jsonl');
    const oneway = (argv: string[]) => runCli((a, io) => run(a, io), argv, dir, { NO_COLOR: '1', COLUMNS: '200' });
    /** An MCP host starting the guard over stdio from this command line. */
    const host = async (line: string) => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [cli('oneway'), ...onewayArgv(line)],
        cwd: dir,
        env: process.env as Record<string, string>,
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (d: Buffer) => (stderr += String(d)));
      const client = new Client({ name: 'agent', version: '1.0.0' });
      await client.connect(transport).catch((e: unknown) => {
        throw new Error(`the guard did not start (${line}): ${stderr}`, { cause: e });
      });
      return client;
    };

    const lines = commandLines(blockAfter('The commands in short', 'bash'));
    expect(lines.map((l) => words(l).slice(0, 3).join(' '))).toEqual([
      'npx oneway import',
      '$EDITOR memory.yaml',
      'npx oneway lint',
      'npx oneway lint',
      'npx oneway guard',
      'npx oneway audit',
      'npx oneway guard',
      'npx oneway recover',
    ]);
    const [importLine, , lintLine, lintPolicyLine, observeLine, auditLine, enforceLine, recoverLine] = lines as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    // The policy the page shows under "What passes".
    writeFileSync(join(dir, 'policy.yaml'), blockAfter('### What passes', 'yaml'));

    // 1. Import from the live server: every tool marked for review.
    const imported = await oneway(onewayArgv(importLine));
    expect(imported.code, imported.stderr).toBe(0);
    expect(readFileSync(join(dir, 'memory.yaml'), 'utf8')).toContain('review: true');

    // 3 before 2: lint says what is left to review, and exits 1 while any is.
    const unreviewed = await oneway(onewayArgv(lintLine));
    expect(unreviewed.code).toBe(1);
    expect(unreviewed.stdout + unreviewed.stderr).toContain('review-pending');
    // 2. The review ($EDITOR): the reviewed declarations the page points at.
    writeFileSync(join(dir, 'memory.yaml'), readFileSync(MEMORY_TOOLS, 'utf8'));
    const reviewed = await oneway(onewayArgv(lintLine));
    expect(reviewed.code, reviewed.stdout + reviewed.stderr).toBe(0);
    const policy = await oneway(onewayArgv(lintPolicyLine));
    expect(policy.code, policy.stdout + policy.stderr).toBe(0);

    // 5. Observe: everything is forwarded; what the policy would have asked is journaled.
    const journal = join(dir, 'journals', 'memory.jsonl');
    const observing = await host(observeLine);
    try {
      const created = await observing.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: 'ann', entityType: 'person', observations: [] }] },
      });
      expect(created.isError, textOf(created)).toBeFalsy();
      const added = await observing.callTool({
        name: 'add_observations',
        arguments: { observations: [{ entityName: 'ann', contents: ['likes tea'] }] },
      });
      expect(added.isError, textOf(added)).toBeFalsy();
    } finally {
      await observing.close();
    }
    expect(outcomes(journal).map((c) => [c.tool, c.status, c.would?.decision])).toEqual([
      ['create_entities', 'ok', undefined],
      ['add_observations', 'ok', 'ask'],
    ]);

    // 6. Audit with the page's gate: no premature irreversible call, so it passes.
    const audited = await oneway(onewayArgv(auditLine));
    expect(audited.code, audited.stderr).toBe(0);
    expect(audited.stdout).toContain('1 session in 1 journal');
    expect(audited.stdout).toMatch(/add_observations \(irreversible\)/);
    const [, withReporters] = commandLines(blockAfter('## 6. Audit the journals', 'bash')) as [string, string];
    const reported = await oneway(onewayArgv(withReporters));
    expect(reported.code, reported.stderr).toBe(0);
    for (const f of ['audit.md', 'audit.html']) expect(existsSync(join(dir, 'audit', f)), f).toBe(true);

    // 7. Enforce on the same journal: under approval, with nobody to ask, the irreversible call is refused.
    const enforcing = await host(enforceLine);
    try {
      const added = await enforcing.callTool({
        name: 'add_observations',
        arguments: { observations: [{ entityName: 'ann', contents: ['likes coffee'] }] },
      });
      expect(added.isError).toBe(true);
      expect(textOf(added)).toMatch(/^refused by oneway guard/);
      const created = await enforcing.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: 'bob', entityType: 'person', observations: [] }] },
      });
      expect(created.isError, textOf(created)).toBeFalsy();
    } finally {
      await enforcing.close();
    }

    // 8. Recover: the checklist of both sessions' calls.
    const checklist = await oneway(onewayArgv(recoverLine));
    expect(checklist.code, checklist.stderr).toBe(0);
    expect(checklist.stdout).toMatch(/^Incident checklist: /m);
    expect(checklist.stdout).toContain('delete_entities({"entityNames":["ann"]})');
    expect(checklist.stdout).toContain('delete_entities({"entityNames":["bob"]})');

    // Step 8's --apply and --settle, with the page's file names for the short block's.
    const section8 = commandLines(blockAfter('## 8. Recover and settle', 'bash') + '\n');
    expect(section8).toHaveLength(1);
    const rest = PAGE.slice(PAGE.indexOf('## 8. Recover and settle'));
    const [applyLine, settleLine] = [...rest.matchAll(/```bash\n([\s\S]*?)```/g)]
      .slice(1, 3)
      .map((m) => commandLines(m[1] as string)[0] as string)
      .map((l) =>
        l.replaceAll('memory-journal.jsonl', 'journals/memory.jsonl').replaceAll('memory-tools.yaml', 'memory.yaml'),
      );
    expect(applyLine).toContain('--apply --approve');
    expect(settleLine).toContain('--settle=');
    const applied = await oneway(onewayArgv(applyLine as string));
    // Both creates undone; the irreversible add_observations has no compensation: left to a person, exit 1.
    expect(applied.code, applied.stdout + applied.stderr).toBe(1);
    expect(applied.stdout).toContain('compensated delete_entities({"entityNames":["bob"]})');
    expect(applied.stdout).toContain('compensated delete_entities({"entityNames":["ann"]})');
    expect(applied.stdout).toContain('step 2 add_observations: not issued: no compensation exists');
    const graph = readFileSync(join(dir, 'memory.jsonl'), 'utf8');
    expect(graph).not.toContain('"ann"');
    expect(graph).not.toContain('"bob"');
    const settled = await oneway(onewayArgv(settleLine as string));
    expect(settled.code, settled.stderr).toBe(0);
    // The page settles step 4: here the create of bob, the guard's last call.
    const step = Number(/--settle=(\d+)=/.exec(settleLine as string)?.[1]);
    expect(outcomes(journal).find((c) => c.step === step)?.tool).toBe('create_entities');
    expect(eventsOf(journal, 'settle').map((s) => [s.settles, s.by])).toEqual([[step, 'alice']]);
  });
});
