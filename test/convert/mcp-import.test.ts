import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { importMcpTools, scenarioId, toolName } from '../../harness/features/convert/import-mcp.ts';
import { classFromHints, toolsListOf, type McpTool } from '../../harness/features/convert/mcp.ts';
import { lintTexts } from '../../harness/features/lint/lint.ts';
import { loadScenarioText } from '../../harness/engine/loader/load.ts';
import { parseYamlSource } from '../../harness/engine/loader/yaml-source.ts';

const listFile = fileURLToPath(new URL('./fixtures/github-tools-list.json', import.meta.url));
const doc = JSON.parse(readFileSync(listFile, 'utf8')) as unknown;

function imported() {
  const list = toolsListOf(doc);
  if (!list.ok) throw new Error(list.message);
  return importMcpTools(list.value.tools, { id: 'github-triage', source: 'github-tools-list.json' });
}

describe('MCP tools/list import', () => {
  it('accepts the JSON-RPC envelope, a bare result, or a list, and refuses anything else', () => {
    const tools = (doc as { result: { tools: unknown[] } }).result.tools;
    for (const shape of [doc, { tools }, tools]) {
      const r = toolsListOf(shape);
      expect(r.ok && r.value.tools.map((t) => t.name)).toEqual([
        'get_issue',
        'list_pull_requests',
        'add_issue_labels',
        'add_issue_comment',
        'merge_pull_request',
        'repos.delete_branch',
      ]);
    }
    expect(toolsListOf({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } })).toMatchObject({
      ok: false,
      message: 'the file holds a JSON-RPC error: Method not found',
    });
    expect(toolsListOf({ name: 'x' })).toMatchObject({ ok: false, message: 'no tools list found' });
    expect(toolsListOf({ tools: [{ description: 'no name' }] })).toEqual({
      ok: true,
      value: { tools: [], skipped: ['tools[0] has no name'] },
    });
  });

  it('classes tools from every hint, conservatively', () => {
    const classOf = (annotations: McpTool['annotations']) => {
      const v = classFromHints({ name: 't', inputSchema: { type: 'object' }, ...(annotations ? { annotations } : {}) });
      return `${v.class}${v.read_only ? ' read_only' : ''}${v.needs_compensation ? ' needs_compensation' : ''}`;
    };
    expect(classOf({ readOnlyHint: true })).toBe('reversible read_only');
    expect(classOf({ readOnlyHint: true, destructiveHint: true })).toBe('reversible read_only');
    expect(classOf({ destructiveHint: false, idempotentHint: true })).toBe('reversible needs_compensation');
    // Additive tools are candidates whether idempotent or not; the importer names their partner or keeps them irreversible.
    expect(classOf({ destructiveHint: false })).toBe('reversible needs_compensation');
    expect(classOf({ destructiveHint: false, idempotentHint: false })).toBe('reversible needs_compensation');
    // Open world: never a reversible candidate.
    expect(classOf({ destructiveHint: false, idempotentHint: true, openWorldHint: true })).toBe('irreversible');
    expect(classOf({ readOnlyHint: true, openWorldHint: true })).toBe('reversible read_only');
    expect(classOf({ idempotentHint: true })).toBe('irreversible'); // MCP's default: destructive
    expect(classOf({ destructiveHint: true })).toBe('irreversible');
    expect(classOf(undefined)).toBe('irreversible');
  });

  it('turns a realistic tools/list into declarations, every one marked for review', () => {
    const r = imported();
    const tools = (r.scenario.tools as Record<string, unknown>[]).map((t) => [
      t.name,
      t.reversibility,
      t.read_only ?? false,
      t.compensating_operation,
      t.review,
    ]);
    expect(tools).toEqual([
      ['get_issue', 'reversible', true, undefined, true],
      ['list_pull_requests', 'reversible', true, undefined, true],
      ['add_issue_labels', 'irreversible', false, null, true], // additive, but no remove_issue_labels to undo it
      ['add_issue_comment', 'irreversible', false, null, true],
      ['merge_pull_request', 'irreversible', false, null, true],
      ['repos_delete_branch', 'irreversible', false, null, true],
    ]);
    expect(r.notes).toEqual([
      'renamed "repos.delete_branch" to "repos_delete_branch" (oneway tool names are letters, digits, _ and -, at most 64)',
      'add_issue_labels: additive (destructiveHint false) but nothing undoes it among the imported tools: irreversible until you name its compensation',
      'merge_pull_request: irreversible with optional parameters: dedupe_on [owner, repo, pullNumber] proposed (its required parameters identify one effect, so a repeat that only adds an optional argument is still the same call); check it',
    ]);
    // An irreversible tool with optional parameters (a merge's commit message): its required ones
    // identify one merge. Those with none optional need no dedupe_on.
    const dedupe = (r.scenario.tools as Record<string, unknown>[]).map((t) => [t.name, t.dedupe_on]);
    expect(dedupe.filter(([, d]) => d !== undefined)).toEqual([
      ['merge_pull_request', ['owner', 'repo', 'pullNumber']],
    ]);
    const labels = (r.scenario.tools as Record<string, unknown>[])[2];
    expect(labels).toMatchObject({
      idempotent: true,
      parameters: { type: 'object', required: ['owner', 'repo', 'issue_number', 'labels'] },
    });
    // $schema is dropped; other JSON Schema keywords are kept.
    const issue = (r.scenario.tools as Record<string, { additionalProperties?: unknown; $schema?: unknown }>[])[0];
    expect(issue?.parameters).toMatchObject({ additionalProperties: false });
    expect(issue?.parameters?.$schema).toBeUndefined();
  });

  it('prints a skeleton that parses, loads, lints with warnings only, and that lint reviews', () => {
    const r = imported();
    expect(parseYamlSource(r.yaml, 'g.yaml').ok).toBe(true);
    expect(parse(r.yaml)).toEqual(r.scenario);
    expect(r.yaml).toContain(
      '# readOnlyHint: false, destructiveHint: false, idempotentHint: true → additive, yet irreversible until reviewed: TODO name the tool that undoes it',
    );
    expect(r.yaml).toContain('# no hints → irreversible until reviewed');
    expect(loadScenarioText(r.yaml, 'g.yaml').ok).toBe(true);
    const findings = lintTexts([{ file: 'g.yaml', text: r.yaml }]);
    expect(findings.filter((f) => f.rule === 'review-pending')).toHaveLength(6);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    // The placeholder goal: get_issue (read-only) establishes it, with TODO inputs for what no planner could fill.
    expect(r.scenario.goal).toEqual(['todo_goal_reached(tool=get_issue)']);
    expect(Object.keys(r.scenario.inputs as object).length).toBeGreaterThan(0);
  });

  it('guesses compensation_args only from fields that exist, else leaves a TODO to review', () => {
    // The memory server's pair: create_entities takes `entities`; delete_entities wants `entityNames`.
    const memory = (outputSchema?: McpTool['outputSchema']): McpTool[] => [
      {
        name: 'create_entities',
        inputSchema: { type: 'object', properties: { entities: { type: 'array' } }, required: ['entities'] },
        annotations: { destructiveHint: false },
        ...(outputSchema ? { outputSchema } : {}),
      },
      {
        name: 'delete_entities',
        inputSchema: {
          type: 'object',
          properties: { entityNames: { type: 'array', items: { type: 'string' } }, entities: { type: 'array' } },
          required: ['entityNames', 'entities'],
        },
        annotations: { destructiveHint: true },
      },
    ];
    const bare = importMcpTools(memory());
    const create = (r: ReturnType<typeof importMcpTools>) => (r.scenario.tools as Record<string, unknown>[])[0];
    expect(create(bare)?.compensation_args).toEqual({
      entityNames: 'TODO: entityNames (no argument or declared result field of create_entities has this name)',
      entities: '{{args.entities}}',
    });
    expect(bare.notes).toContain(
      'create_entities: compensation_args "entityNames" left TODO: delete_entities requires it, and no argument or declared result field of create_entities has that name',
    );
    // A result field the outputSchema declares is a fair guess.
    const declared = importMcpTools(
      memory({ type: 'object', properties: { entityNames: { type: 'array', items: { type: 'string' } } } }),
    );
    expect(create(declared)?.compensation_args).toEqual({
      entityNames: '{{result.entityNames}}',
      entities: '{{args.entities}}',
    });
    for (const r of [bare, declared]) {
      expect(loadScenarioText(r.yaml, 'm.yaml').ok).toBe(true);
      expect(lintTexts([{ file: 'm.yaml', text: r.yaml }]).filter((f) => f.severity === 'error')).toEqual([]);
    }
  });

  it('makes names fit oneway and scenario ids kebab-case', () => {
    expect(toolName('repos/get.file contents', new Set())).toBe('repos_get_file_contents');
    expect(toolName('a.b', new Set(['a_b']))).toBe('a_b_2');
    expect(toolName('x'.repeat(80), new Set())).toHaveLength(64);
    expect(scenarioId('GitHub MCP tools.json')).toBe('github-mcp-tools');
    expect(scenarioId('...')).toBe('imported-tools');
  });
});
