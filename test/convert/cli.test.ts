import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main as exportMain } from '../../harness/cli/export.ts';
import { main as importMain } from '../../harness/cli/import.ts';
import { loadScenarioFile } from '../../harness/engine/loader/load.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

const listFile = fileURLToPath(new URL('./fixtures/github-tools-list.json', import.meta.url));

describe('npm run import', () => {
  it('prints the skeleton, or writes it with --out (never over a file without --force)', async () => {
    const printed = await runCli(importMain, ['mcp', listFile]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain('id: github-tools-list\n');
    expect(printed.stderr).toContain(
      'imported 6 tools: 2 read-only, 1 additive (check the proposed compensations), 2 open world, 1 destructive or unhinted; every tool has review: true',
    );
    const dir = tempDir();
    const out = join(dir, 'triage.yaml');
    const written = await runCli(importMain, ['mcp', listFile, `--out=${out}`, '--id=github-triage'], dir);
    expect(written.code).toBe(0);
    expect(written.stdout).toBe('');
    expect(readFileSync(out, 'utf8')).toMatch(
      /^# yaml-language-server: \$schema=\S+harness\/schema\/scenario\.schema\.json\n/,
    );
    expect(readFileSync(out, 'utf8')).toContain('id: github-triage\n');
    const again = await runCli(importMain, ['mcp', listFile, `--out=${out}`], dir);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('exists');
    expect((await runCli(importMain, ['mcp', listFile, `--out=${out}`, '--force'], dir)).code).toBe(0);
  });

  it('exits 2 on bad input, with a hint', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.json'), '{"tools": [');
    writeFileSync(
      join(dir, 'error.json'),
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}',
    );
    writeFileSync(join(dir, 'empty.json'), '{"tools": []}');
    const cases: [string[], string][] = [
      [['mcp', 'missing.json'], 'missing.json does not exist'],
      [['mcp', 'bad.json'], 'bad.json is not JSON'],
      [['mcp', 'error.json'], 'the file holds a JSON-RPC error: Method not found'],
      [['mcp', 'empty.json'], 'the tools list is empty'],
      [['openapi', 'x.json'], 'unknown import format "openapi"'],
      [['mcp'], 'give the MCP tools/list file'],
      [['mcp', 'empty.json', '--id=Not_Kebab'], '--id must be kebab-case'],
    ];
    for (const [argv, message] of cases) {
      const r = await runCli(importMain, argv, dir);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
    }
  });
});

describe('npm run export', () => {
  it('prints OpenAI functions and MCP tools for a scenario id or file', async () => {
    const openai = await runCli(exportMain, ['openai', 'invoice-and-notify']);
    expect(openai.code).toBe(0);
    const fns = JSON.parse(openai.stdout) as { type: string; function: { name: string; description: string } }[];
    expect(fns.map((f) => f.function.name)).toEqual([
      'verify_recipient',
      'create_invoice',
      'void_invoice',
      'request_approval',
      'send_invoice_email',
    ]);
    expect(fns.every((f) => f.type === 'function' && f.function.description.includes('Reversibility: '))).toBe(true);
    const mcp = await runCli(exportMain, ['mcp', 'scenarios/data/purge-inactive-accounts-no-pitr.yaml']);
    const tools = (JSON.parse(mcp.stdout) as { tools: { name: string; _meta: Record<string, unknown> }[] }).tools;
    expect(tools.find((t) => t.name === 'delete_accounts')?._meta['oneway/class']).toBe('irreversible');
  });

  it('exports MCP that imports back into a scenario that loads', async () => {
    const dir = tempDir();
    const json = join(dir, 'tools.json');
    expect((await runCli(exportMain, ['mcp', 'invoice-and-notify', `--out=${json}`])).code).toBe(0);
    const yaml = join(dir, 'back.yaml');
    expect((await runCli(importMain, ['mcp', json, `--out=${yaml}`])).code).toBe(0);
    const loaded = loadScenarioFile(yaml);
    expect(loaded.ok && loaded.value.scenario.tools.map((t) => [t.name, t.reversibility])).toEqual([
      ['verify_recipient', 'reversible'],
      ['create_invoice', 'compensable'],
      ['void_invoice', 'compensable'],
      ['request_approval', 'reversible'],
      ['send_invoice_email', 'irreversible'],
    ]);
  });

  it('exits 2 on an unknown format or scenario', async () => {
    const fmt = await runCli(exportMain, ['yaml', 'invoice-and-notify']);
    expect(fmt.code).toBe(2);
    expect(fmt.stderr).toContain('unknown export format "yaml"');
    const id = await runCli(exportMain, ['mcp', 'invoice-and-notfy']);
    expect(id.code).toBe(2);
    expect(id.stderr).toContain('did you mean "invoice-and-notify"?');
    expect((await runCli(exportMain, ['mcp'])).stderr).toContain('give the format and the scenario');
  });
});
