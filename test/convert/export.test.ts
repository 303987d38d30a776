import { describe, expect, it } from 'vitest';
import { BUNDLED_SCENARIOS } from '../../harness/cli/common.ts';
import { exportMcp, exportOpenAi } from '../../harness/features/convert/export.ts';
import { importMcpTools } from '../../harness/features/convert/import-mcp.ts';
import { toMcpTool, toolsListOf } from '../../harness/features/convert/mcp.ts';
import { classNote, toOpenAiFunction } from '../../harness/features/convert/openai.ts';
import { effectiveClass } from '../../harness/domain/rules/classes.ts';
import { loadScenarioText } from '../../harness/engine/loader/load.ts';
import { resolveScenarios } from '../../harness/engine/loader/resolve.ts';
import type { Scenario, Tool } from '../../harness/core/scenario.ts';
import { scenarioFrom, EMAIL_YAML } from '../helpers/run.ts';

/** The bundled scenarios, loaded once for the file (both round trips read them; neither changes them). */
let loading: Promise<Scenario[]> | undefined;
const bundled = (): Promise<Scenario[]> =>
  (loading ??= resolveScenarios([BUNDLED_SCENARIOS], { cwd: process.cwd(), root: BUNDLED_SCENARIOS }).then((r) =>
    r.loaded.map((l) => l.scenario),
  ));

/** Export to MCP, over the wire as JSON, and import again. */
function roundTrip(s: Scenario, strip = false) {
  const wire = JSON.parse(JSON.stringify(exportMcp(s))) as unknown;
  const list = toolsListOf(wire);
  if (!list.ok) throw new Error(list.message);
  const tools = strip ? list.value.tools.map(({ _meta: _m, ...t }) => t) : list.value.tools;
  return importMcpTools(tools, { id: s.id });
}

describe('export', () => {
  it('MCP: hints from the class, the declaration in _meta', () => {
    const s = scenarioFrom(EMAIL_YAML);
    const byName = new Map(exportMcp(s).tools.map((t) => [t.name, t]));
    expect(byName.get('verify_recipient')?.annotations).toEqual({ readOnlyHint: true, destructiveHint: false });
    expect(byName.get('send_email')).toMatchObject({
      annotations: { readOnlyHint: false, destructiveHint: true },
      _meta: {
        'oneway/class': 'irreversible',
        'oneway/compensating_operation': null,
        'oneway/preconditions': ['recipient_verified(email={{args.to}})', 'human_gate_passed(action=send_email)'],
      },
    });
    expect(byName.get('create_invoice')).toMatchObject({
      annotations: { readOnlyHint: false, destructiveHint: true },
      _meta: {
        'oneway/class': 'compensable',
        'oneway/compensating_operation': 'void_invoice',
        'oneway/compensation_requires_approval': true,
      },
    });
    // A deployment-dependent class is exported as deployed (pitr_hours: 72 → reversible).
    expect(byName.get('purge_inactive')).toMatchObject({
      annotations: { destructiveHint: false },
      _meta: { 'oneway/class': 'reversible', 'oneway/compensating_operation': 'restore_accounts' },
    });
    expect(byName.get('request_approval')?._meta).toMatchObject({ 'oneway/kind': 'approval' });
    expect(byName.get('send_email')?.inputSchema).toEqual({
      type: 'object',
      properties: { to: { type: 'string' } },
      required: ['to'],
    });
  });

  it('MCP: idempotentHint only where declared', () => {
    const t = {
      name: 'x',
      description: '',
      read_only: false,
      parameters: { type: 'object' as const, properties: {}, required: [] },
      preconditions: [],
    };
    expect(toMcpTool(t, 'reversible').annotations).toEqual({ readOnlyHint: false, destructiveHint: false });
    expect(toMcpTool({ ...t, idempotent: true }, 'irreversible').annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
  });

  it('OpenAI: function definitions with the class, compensation and preconditions in the description', () => {
    const fns = exportOpenAi(scenarioFrom(EMAIL_YAML));
    const send = fns.find((f) => f.function.name === 'send_email');
    expect(send).toEqual({
      type: 'function',
      function: {
        name: 'send_email',
        description:
          'Reversibility: irreversible (cannot be undone: call it only once its preconditions hold, alone, and never retry it blindly after an ambiguous failure). Preconditions (must hold when called): recipient_verified(email={{args.to}}); human_gate_passed(action=send_email).',
        parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
      },
    });
    expect(fns.find((f) => f.function.name === 'create_invoice')?.function.description).toContain(
      'Reversibility: compensable (undone only by void_invoice, a new action that needs approval).',
    );
    expect(fns.find((f) => f.function.name === 'verify_recipient')?.function.description).toBe(
      'Reversibility: reversible, read-only (no side effects).',
    );
    expect(
      classNote({
        class: 'reversible',
        read_only: false,
        compensating_operation: 'restore_accounts',
        preconditions: [],
      }),
    ).toBe('Reversibility: reversible (undone by restore_accounts).');
    expect(
      toOpenAiFunction({
        name: 'n',
        description: '  Do\n it. ',
        class: 'reversible',
        read_only: true,
        parameters: { type: 'object', properties: {}, required: [] },
        preconditions: [],
      }).function.description,
    ).toBe('Do it. Reversibility: reversible, read-only (no side effects).');
  });
});

describe('round trip: export MCP, then import', () => {
  it('keeps every class, read_only and compensation of the bundled scenarios through _meta, and the result loads', async () => {
    const scenarios = await bundled();
    expect(scenarios.length).toBeGreaterThan(5);
    for (const s of scenarios) {
      const r = roundTrip(s);
      const loaded = loadScenarioText(r.yaml, `${s.id}.yaml`);
      expect(loaded.ok ? [] : loaded.problems.map((p) => `${p.path}: ${p.message}`), s.id).toEqual([]);
      if (!loaded.ok) continue;
      for (const t of s.tools) {
        const back = loaded.value.scenario.tools.find((x) => x.name === t.name) as Tool;
        const comp =
          t.read_only || effectiveClass(t, s.deployment) === 'irreversible' ? null : (t.compensating_operation ?? null);
        expect(
          [back.reversibility, back.read_only, back.compensating_operation ?? null, back.review],
          `${s.id}/${t.name}`,
        ).toEqual([effectiveClass(t, s.deployment), t.read_only, comp, true]);
      }
    }
  });

  it('with hints alone: read-only stays read-only, irreversible stays irreversible, and nothing becomes less cautious', async () => {
    for (const s of await bundled()) {
      const back = roundTrip(s, true).scenario.tools as Record<string, unknown>[];
      s.tools.forEach((t, i) => {
        const cls = effectiveClass(t, s.deployment);
        // A reversible tool comes back reversible only when its partner by name undoes it; compensable and
        // irreversible ones (destructiveHint true) come back irreversible. Never less cautious.
        const caution = ['reversible', 'compensable', 'irreversible'];
        expect(back[i]?.read_only ?? false, `${s.id}/${t.name}`).toBe(t.read_only);
        if (t.read_only) expect(back[i]?.reversibility).toBe('reversible');
        else if (cls !== 'reversible') expect(back[i]?.reversibility, `${s.id}/${t.name}`).toBe('irreversible');
        else expect(caution.indexOf(String(back[i]?.reversibility)), `${s.id}/${t.name}`).toBeGreaterThanOrEqual(0);
      });
    }
  });
});
