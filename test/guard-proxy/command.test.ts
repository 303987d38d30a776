/**
 * `oneway guard` as a command: killed with SIGKILL mid-call, its journal still says what may have
 * happened, and a guard started again on it continues it; served over Streamable HTTP with
 * `--listen` (loopback, Origin checked); bad input is a positioned problem or a usage error with a
 * hint, never a stack trace; the help fits the terminal. Where the process is the point (SIGKILL,
 * stdio, a listening port, its exit status) the guard is the compiled CLI in a process of its own;
 * the rest calls its main in process.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { main as guardMain, OPTIONS } from '../../harness/cli/guard.ts';
import { main as recover } from '../../harness/cli/recover.ts';
import { run } from '../../harness/cli/program.ts';
import { REPO_ROOT } from '../../harness/cli/common.ts';
import { LOST_INTENT_ERROR } from '../../harness/engine/record/reader.ts';
import { when } from '../mcp/helpers.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { cli } from '../helpers/compiled.ts';
import {
  eventsOf,
  guardCommand,
  guardInProcess,
  MEMORY_SERVER,
  MEMORY_TOOLS,
  MISBEHAVING_SERVER,
  MISBEHAVING_TOOLS,
  nodeServer,
  outcomes,
  textOf,
  toolsAt,
  whenFile,
} from './helpers.ts';

describe('oneway guard killed mid-call', () => {
  it('leaves a journal whose intent recover shows as uncertain, and a restarted guard refuses the blind repeat', async () => {
    const dir = tempDir('oneway-guard-kill-');
    const journal = join(dir, 'journal.jsonl');
    const args = [
      `--tools=${MISBEHAVING_TOOLS}`,
      `--journal=${journal}`,
      '--',
      process.execPath,
      MISBEHAVING_SERVER,
      dir,
    ];
    writeFileSync(join(dir, 'hang'), '');
    const first = await guardCommand(args);
    const pending = first.client
      .callTool({ name: 'charge', arguments: { to: 'acme', amount: 50 } })
      .catch((e: Error) => e);
    // The intent is in the journal before the call reaches the server.
    await whenFile(journal, () => eventsOf(journal, 'intent').find((i) => i.tool === 'charge'));
    await whenFile(join(dir, 'calls.jsonl'), () => (existsSync(join(dir, 'calls.jsonl')) ? true : undefined));
    process.kill(first.transport.pid as number, 'SIGKILL');
    expect(await pending).toBeInstanceOf(Error);
    expect(outcomes(journal)).toEqual([]);

    // Wide enough that no checklist line wraps (recover wraps to the terminal's width).
    const checklist = await runCli(recover, [journal], process.cwd(), { NO_COLOR: '1', COLUMNS: '1000' });
    expect(checklist.code).toBe(0);
    expect(checklist.stdout).toContain('1 to reconcile; 1 uncertain');
    expect(checklist.stdout).toContain('UNCERTAIN: may have happened: reconcile first (check with charge_status)');
    expect(checklist.stdout).toContain(LOST_INTENT_ERROR);

    // Started again on the same journal: the lost call is journaled as the ambiguous failure it is, and not repeated blindly.
    rmSync(join(dir, 'hang'));
    const second = await guardCommand(args);
    const blind = await second.client.callTool({ name: 'charge', arguments: { to: 'acme', amount: 50 } });
    expect(textOf(blind)).toMatch(
      /^refused by oneway guard: unreconciled retry: the same call failed ambiguously at step 1/,
    );
    await second.client.callTool({ name: 'charge_status', arguments: { to: 'acme' } });
    const after = await second.client.callTool({ name: 'charge', arguments: { to: 'acme', amount: 50 } });
    expect(after.isError).toBeFalsy();
    await second.client.close();
    expect(outcomes(journal).map((c) => [c.step, c.tool, c.status, c.reply_lost ?? false])).toEqual([
      [1, 'charge', 'fault', true],
      [2, 'charge', 'blocked', false],
      [3, 'charge_status', 'ok', false],
      [4, 'charge', 'ok', false],
    ]);
    expect(second.stderr()).toContain(`journal ${journal}`);
  });
});

describe('oneway guard --listen', () => {
  it('serves MCP over Streamable HTTP on loopback, asks approvals by elicitation, refuses a foreign Origin, and journals every call', async () => {
    const dir = tempDir('oneway-guard-http-');
    const journal = join(dir, 'journal.jsonl');
    const child = spawn(
      process.execPath,
      [
        cli('oneway'),
        'guard',
        `--tools=${MEMORY_TOOLS}`,
        `--policy=${join(REPO_ROOT, 'examples/guard/policy.yaml')}`,
        `--journal=${journal}`,
        '--listen=0',
        '--',
        process.execPath,
        MEMORY_SERVER,
      ],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += String(d)));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const url = await when(child.stderr, 'data', () => /serving at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err)?.[1]);

    const client = new Client({ name: 'agent', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (req) => {
      asked.push(req.params.message);
      return { action: 'accept' };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const created = await client.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'Web', entityType: 'page', observations: [] }] },
    });
    expect(created.isError).toBeFalsy();
    // Irreversible under `approval`: the client's user is asked, on the call's own stream.
    const deleted = await client.callTool({ name: 'delete_entities', arguments: { entityNames: ['Web'] } });
    expect(deleted.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    await client.close();

    const foreign = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: 'https://evil.example',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    expect(foreign.status).toBe(403);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(outcomes(journal).map((c) => [c.tool, c.status])).toEqual([
      ['create_entities', 'ok'],
      ['delete_entities', 'ok'],
    ]);
  });
});

describe('oneway guard: bad input', () => {
  const cwd = REPO_ROOT;
  const server = ['--', process.execPath, MEMORY_SERVER];

  it('says what is wrong with the command line, with a hint', async () => {
    const cases: [string[], RegExp][] = [
      [server, /--tools is required/],
      [[`--tools=${MEMORY_TOOLS}`], /give the MCP server: -- COMMAND ARGS\.\.\., or --upstream=URL/],
      [[`--tools=${MEMORY_TOOLS}`, '--upstream=http://127.0.0.1:1/mcp', ...server], /not both/],
      [[`--tools=${MEMORY_TOOLS}`, '--upstream=ftp://x'], /--upstream must be an http\(s\) URL/],
      [
        [`--tools=${MEMORY_TOOLS}`, '--listen=0.0.0.0:8377', ...server],
        /--listen takes \[HOST:\]PORT on this machine[\s\S]*hint: the endpoint of the guard has no authentication/,
      ],
      [[`--tools=${MEMORY_TOOLS}`, '--call-timeout=soon', ...server], /--call-timeout must be an integer/],
    ];
    for (const [argv, message] of cases) {
      const r = await runCli(guardMain, argv, cwd);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('reports a declaration a real server cannot honour, a bad policy and a bad facts file at their line and column', async () => {
    const dir = tempDir('oneway-guard-input-');
    const tools = join(dir, 'tools.yaml');
    writeFileSync(
      tools,
      [
        'tools:',
        '  - name: create_invoice',
        '    reversibility: compensable',
        '    compensating_operation: void_invoice',
        '    effects: [ { establish: "invoice_created(id={{id}})" } ]',
        '    compensation_args: { invoice_id: "{{result.id}}" }',
        '    parameters: { type: object, properties: {} }',
        '  - name: void_invoice',
        '    reversibility: compensable',
        '    compensating_operation: create_invoice',
        '    parameters: { type: object, properties: { invoice_id: { type: string } }, required: [invoice_id] }',
        '',
      ].join('\n'),
    );
    const r = await runCli(guardMain, [`--tools=${tools}`, ...server], cwd);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${tools}:5:`);
    expect(r.stderr).toContain('{{id}} is the id the evaluation sandbox generates');
    expect(r.stderr).toContain("hint: read the id from the server's reply instead, e.g. {{result.id}}");

    const policy = join(dir, 'policy.yaml');
    writeFileSync(policy, 'irreversible: ask-someone\n');
    const p = await runCli(guardMain, [`--tools=${MEMORY_TOOLS}`, `--policy=${policy}`, ...server], cwd);
    expect(p.code).toBe(2);
    expect(p.stderr).toMatch(new RegExp(`${policy}:1:\\d+ error \\[invalid_enum\\] irreversible`));

    const facts = join(dir, 'facts.yaml');
    writeFileSync(facts, 'facts:\n  - customer_exists(customer=acme)\n  - region(name=*)\n');
    const f = await runCli(guardMain, [`--tools=${MEMORY_TOOLS}`, `--facts=${facts}`, ...server], cwd);
    expect(f.code).toBe(2);
    expect(f.stderr).toContain(`${facts}:3:`);
    expect(f.stderr).toContain('has a wildcard: a known fact is ground');
  });

  it('does not write into a journal of other declarations, or into an evaluation record', async () => {
    const dir = tempDir('oneway-guard-journal-');
    const journal = join(dir, 'journal.jsonl');
    writeFileSync(
      journal,
      `${JSON.stringify({ type: 'run_start', schema_version: 2, run_id: 'x', scenario: 's', scenario_file: 's.yaml', planner: 'gated', trial: 1, seed: 1, deployment: {}, max_steps: 5, guard: false, tools: [], initial_world: { facts: [], tables: {} } })}\n`,
    );
    const r = await runCli(guardMain, [`--tools=${MEMORY_TOOLS}`, `--journal=${journal}`, ...server], cwd);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is the record of an evaluation, not a guard's journal");

    // A journal another guard began (in this process: what the command writes is the first test's).
    const other = join(dir, 'other.jsonl');
    const first = await guardInProcess({
      tools: toolsAt(MISBEHAVING_TOOLS),
      toolsFile: MISBEHAVING_TOOLS,
      target: nodeServer(MISBEHAVING_SERVER, [dir]),
      journal: other,
    });
    await first.close();
    const again = await runCli(guardMain, [`--tools=${MEMORY_TOOLS}`, `--journal=${other}`, ...server], cwd);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('began with other tools than this guard enforces');
    expect(again.stderr).toContain('hint: a journal holds one set of declarations: give --journal a new file');
    // Untouched: only what the first guard wrote.
    expect(readFileSync(other, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('gets a server command after a leading -- through the oneway command (commander used to drop the --)', async () => {
    const io = () => {
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let out = '';
      let err = '';
      stdout.on('data', (d) => (out += String(d)));
      stderr.on('data', (d) => (err += String(d)));
      return { io: { stdout, stderr, cwd, env: { NO_COLOR: '1' } }, out: () => out, err: () => err };
    };
    const g = io();
    expect(await run(['guard', '--', process.execPath, MEMORY_SERVER], g.io)).toBe(2);
    expect(g.err()).toContain('--tools is required');
    const i = io();
    expect(await run(['import', 'mcp', '--', process.execPath, MEMORY_SERVER], i.io)).toBe(0);
    expect(i.out()).toContain('- name: create_entities');
  });

  it('prints its help wrapped to the width of the terminal, every option in it', async () => {
    for (const columns of [64, 100]) {
      const stdout = Object.assign(new PassThrough(), { columns });
      let out = '';
      stdout.on('data', (d) => (out += String(d)));
      const code = await guardMain(['--help'], { stdout, stderr: new PassThrough(), cwd, env: {} });
      expect(code).toBe(0);
      const lines = out.trimEnd().split('\n');
      expect(Math.max(...lines.map((l) => l.length)), `${columns} columns`).toBeLessThanOrEqual(columns);
      for (const name of Object.keys(OPTIONS)) expect(out).toContain(`--${name}`);
    }
  });
});
