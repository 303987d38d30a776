/**
 * Review before enforcing. `oneway lint` reads the files `oneway guard` enforces: a tools block
 * (not "missing required field id"), a scenario read as a tools file (`--as=tools`), and a policy
 * file. What `oneway import` writes from the real server-memory and server-filesystem is not
 * reviewed yet: lint names every entry still marked `review: true` and every compensation still
 * holding a TODO, and the guard refuses to start on it, naming them, unless `--allow-unreviewed`.
 * A precondition no declared tool establishes (the typo `file_red`) is a finding too.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as guardMain } from '../../harness/cli/guard.ts';
import { main as importMain } from '../../harness/cli/import.ts';
import { main as lint } from '../../harness/cli/lint.ts';
import { REPO_ROOT } from '../../harness/cli/common.ts';
import { lintTexts } from '../../harness/features/lint/lint.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { FILESYSTEM_SERVER, FILESYSTEM_TOOLS, guardCommand, MEMORY_SERVER, MEMORY_TOOLS } from './helpers.ts';

/** What `oneway import mcp --out=FILE -- node SERVER ARGS` writes from a real server. */
async function imported(dir: string, name: string, server: string[]): Promise<string> {
  const out = join(dir, `${name}.yaml`);
  const r = await runCli(importMain, ['mcp', `--out=${out}`, '--', process.execPath, ...server], dir);
  expect(r.code, r.stderr).toBe(0);
  return out;
}

/** The findings' `line rule path` heads, and the exit status. */
async function lintOf(args: string[], cwd: string): Promise<{ code: number; heads: string[]; out: string }> {
  const r = await runCli(lint, args, cwd);
  const heads = r.stdout
    .split('\n')
    .filter((l) => /^\S/.test(l))
    .map((l) => / (error|warning|info) \[([^\]]+)\] (\S+):/.exec(l)?.slice(1).join(' ') ?? l);
  return { code: r.code, heads, out: r.stdout + r.stderr };
}

/** A tools block whose write_file needs the typo file_red. */
const TYPO_BLOCK = `tools:
  - name: read_text_file
    reversibility: reversible
    read_only: true
    parameters: { type: object, properties: { path: { type: string } }, required: [path] }
    effects: [ { establish: "file_read(path={{args.path}})" } ]
  - name: write_file
    reversibility: irreversible
    preconditions: ["file_red(path={{args.path}})"]
    parameters: { type: object, properties: { path: { type: string }, content: { type: string } }, required: [path, content] }
`;

describe('oneway lint on the files the guard enforces', () => {
  it('reads a tools block as one (no "missing required field id"), and a reviewed block is clean', async () => {
    const r = await lintOf([MEMORY_TOOLS, FILESYSTEM_TOOLS], REPO_ROOT);
    expect(r.out).not.toContain('missing required field');
    expect(r.heads).toEqual([]);
    expect(r.code).toBe(0);
  });

  it('finds every unreviewed entry and TODO compensation of what import writes from server-memory: errors as a tools file, warnings as a scenario', async () => {
    const dir = tempDir('oneway-review-');
    const file = await imported(dir, 'memory', [MEMORY_SERVER]);
    const asTools = await lintOf(['--as=tools', file], dir);
    expect(asTools.code).toBe(1);
    const errors = asTools.heads.filter((h) => h.startsWith('error'));
    // Each of the 9 tools is unreviewed; 2 compensations were left TODO.
    expect(errors.filter((h) => h.startsWith('error review-pending tools['))).toHaveLength(9);
    expect(errors.filter((h) => h.includes('compensation-todo'))).toEqual([
      'error compensation-todo tools[0].compensation_args.entityNames',
      'error compensation-todo tools[2].compensation_args.deletions',
    ]);
    expect(asTools.out).toContain('the compensation of "create_entities" still holds a TODO');
    // As a scenario (an imported skeleton to evaluate), the same findings are warnings.
    const asScenario = await lintOf([file], dir);
    expect(asScenario.code).toBe(0);
    expect(asScenario.heads.filter((h) => h.startsWith('warning'))).toHaveLength(11);
  });

  it('finds a precondition no declared tool establishes, and names the fact it meant', async () => {
    const dir = tempDir('oneway-review-');
    writeFileSync(join(dir, 'fs.yaml'), TYPO_BLOCK);
    const r = await lintOf(['fs.yaml'], dir);
    expect(r.code).toBe(1);
    expect(r.heads).toEqual(['error unreachable-precondition tools[1].preconditions[0]']);
    expect(r.out).toContain('precondition file_red(path={{args.path}}) of "write_file" can never hold');
    expect(r.out).toContain('did you mean "file_read"');
  });

  it('reads a scenario as a tools file as the guard does: its world is not what the guard knows, its --facts are', () => {
    const text = `id: bill
title: Bill
task: Bill acme.
world: { facts: [customer_exists(customer=acme)] }
tools:
  - name: create_invoice
    reversibility: irreversible
    preconditions: ["customer_exists(customer={{args.customer}})"]
    parameters: { type: object, properties: { customer: { type: string } }, required: [customer] }
    effects: [ { establish: "invoiced(customer={{args.customer}})" } ]
goal: ["invoiced(customer=acme)"]
`;
    const rule = (kind?: 'tools', facts?: string[]) =>
      lintTexts([{ file: 'bill.yaml', text, kind, facts }])
        .filter((f) => f.rule === 'unreachable-precondition')
        .map((f) => `${f.severity} ${f.path}`);
    expect(rule()).toEqual([]);
    expect(rule('tools')).toEqual(['warning tools[0].preconditions[0]']);
    expect(rule('tools', ['customer_exists(customer=acme)'])).toEqual([]);
  });

  it('reads a policy file: clean, a misspelt rule at its line, and irreversible: auto a warning', async () => {
    const dir = tempDir('oneway-review-');
    writeFileSync(join(dir, 'bad.yaml'), 'reversible: auto\nirreversible: gate\n');
    writeFileSync(join(dir, 'loose.yaml'), 'irreversible: auto\n');
    const clean = await lintOf([join(REPO_ROOT, 'examples/guard/policy.yaml')], dir);
    expect(clean).toMatchObject({ code: 0, heads: [] });
    const bad = await lintOf(['bad.yaml'], dir);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/^bad\.yaml:2:15 error \[load\/\w+\] irreversible: /m);
    const loose = await lintOf(['loose.yaml'], dir);
    expect(loose).toMatchObject({ code: 0, heads: ['warning policy-auto irreversible'] });
  });

  it('--as=policy reads any file as a policy; an unknown --as is a usage error', async () => {
    const dir = tempDir('oneway-review-');
    const forced = await lintOf(['--as=policy', MEMORY_TOOLS], dir);
    expect(forced.code).toBe(1);
    expect(forced.out).toContain('unknown key "tools"');
    const r = await runCli(lint, ['--as=toolz', MEMORY_TOOLS], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--as must be scenario, tools or policy');
  });
});

describe('oneway guard refuses an unreviewed tools file', () => {
  it('refuses what import writes from server-filesystem, naming the entries, before starting the server', async () => {
    const dir = tempDir('oneway-review-');
    const file = await imported(dir, 'fs', [FILESYSTEM_SERVER, dir]);
    const journal = join(dir, 'journal.jsonl');
    const r = await runCli(
      guardMain,
      [`--tools=${file}`, `--journal=${journal}`, '--', process.execPath, FILESYSTEM_SERVER, dir],
      dir,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error \[review-pending\] tools\[\d+\]\.review: tool "write_file" is not reviewed yet/);
    expect(r.stderr).toContain('is not reviewed (');
    expect(r.stderr).toMatch(/findings on [a-z_, ]*write_file/);
    expect(r.stderr).toContain('--allow-unreviewed');
    // Nothing started, nothing journaled.
    expect(() => readFileSync(journal)).toThrow();
  });

  it('refuses a typo precondition; --facts giving the fact lets it start', async () => {
    const dir = tempDir('oneway-review-');
    writeFileSync(join(dir, 'fs.yaml'), TYPO_BLOCK);
    const args = ['--tools=fs.yaml', `--journal=${join(dir, 'j.jsonl')}`, '--upstream=http://127.0.0.1:9/mcp'];
    const r = await runCli(guardMain, args, dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error [unreachable-precondition] tools[1].preconditions[0]');
    expect(r.stderr).toContain('(1 finding on write_file)');
    // A fact the guard knows from the start can hold: the precondition is no finding then (the guard
    // goes on to the server, which is not there).
    writeFileSync(join(dir, 'facts.yaml'), '- file_red(path=/tmp/a)\n');
    const known = await runCli(guardMain, [...args, '--facts=facts.yaml'], dir);
    expect(known.stderr).not.toContain('not reviewed');
    expect(known.stderr).toContain('check the URL serves MCP');
  });

  it('--allow-unreviewed enforces the imported server-memory file as it is, and says so', async () => {
    const dir = tempDir('oneway-review-');
    const file = await imported(dir, 'memory', [MEMORY_SERVER]);
    const guard = await guardCommand(
      [
        `--tools=${file}`,
        '--allow-unreviewed',
        `--journal=${join(dir, 'j.jsonl')}`,
        '--',
        process.execPath,
        MEMORY_SERVER,
      ],
      { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
    );
    try {
      const listed = await guard.client.listTools();
      expect(listed.tools.map((t) => t.name)).toContain('create_entities');
      expect(guard.stderr()).toMatch(
        /enforcing .*memory\.yaml unreviewed \(--allow-unreviewed\): 11 findings on create_entities/,
      );
    } finally {
      await guard.client.close();
    }
  });
});
