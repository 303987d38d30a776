import { describe, expect, it } from 'vitest';
import { loadScenarioText } from '../../harness/engine/loader/load.ts';
import { lookupTemplate, renderText, renderValue } from '../../harness/core/templates/render.ts';
import { oracleScores, recordedScores } from '../../harness/features/fuzz/oracle.ts';
import { runPlan } from '../../harness/features/fuzz/run-plan.ts';
import type { CallEvent } from '../../harness/core/record.ts';
import { scenarioFrom } from '../helpers/run.ts';

const entities = [
  { name: 'Ada', entityType: 'person', observations: ['wrote notes'] },
  { name: 'Babbage', entityType: 'person', observations: [] },
];

describe('template projections over arrays', () => {
  it('{{args.entities[*].name}} is the list of the entities names, and keeps its type as a whole template', () => {
    expect(renderValue('{{args.entities[*].name}}', { args: { entities } })).toEqual(['Ada', 'Babbage']);
    expect(renderValue({ entityNames: '{{args.entities[*].name}}' }, { args: { entities } })).toEqual({
      entityNames: ['Ada', 'Babbage'],
    });
    // Spliced into text, the list is its JSON.
    expect(renderText('names: {{args.entities[*].name}}', { args: { entities } })).toBe('names: ["Ada","Babbage"]');
    expect(renderValue('{{result.entities[*].name}}', { result: { entities: [] } })).toEqual([]);
  });

  it('flattens a projection inside another one, and reads a list result at the root', () => {
    const ctx = { args: { entities }, result: [{ id: 1 }, { id: 2 }] };
    expect(lookupTemplate(ctx, 'args.entities[*].observations[*]')).toEqual(['wrote notes']);
    expect(lookupTemplate(ctx, 'args.entities[*].observations')).toEqual([['wrote notes'], []]);
    expect(lookupTemplate(ctx, 'result[*].id')).toEqual([1, 2]);
  });

  it('is missing, never a list with holes, when the value is not a list or an item lacks the rest of the path', () => {
    expect(renderValue('{{args.entities[*].name}}', { args: { entities: 'Ada' } })).toBe('');
    expect(renderValue('{{args.entities[*].name}}', { args: { entities: [{ name: 'a' }, {}] } }, 'keep')).toBe(
      '{{args.entities[*].name}}',
    );
    // An inherited property is not a field: an item without `constructor` has none.
    expect(renderValue('{{args.entities[*].constructor}}', { args: { entities: [{}] } })).toBe('');
  });

  it('is checked by the loader as the parameter it projects, with a positioned problem for a wrong one', () => {
    const tool = (args: string) => `
id: proj
title: t
task: t
tools:
  - name: create_entities
    reversibility: reversible
    compensating_operation: delete_entities
    compensation_args: { entityNames: "${args}" }
    parameters: { type: object, properties: { entities: { type: array } }, required: [entities] }
  - name: delete_entities
    reversibility: irreversible
    parameters: { type: object, properties: { entityNames: { type: array } }, required: [entityNames] }
goal: [done()]
`;
    expect(loadScenarioText(tool('{{args.entities[*].name}}'), 'p.yaml').ok).toBe(true);
    expect(loadScenarioText(tool('{{result.entities[*].name}}'), 'p.yaml').ok).toBe(true);
    const wrong = loadScenarioText(tool('{{args.entitys[*].name}}'), 'p.yaml');
    expect(wrong.ok).toBe(false);
    if (!wrong.ok)
      expect(wrong.problems[0]).toMatchObject({
        line: 9,
        path: 'tools[0].compensation_args.entityNames',
        message: expect.stringContaining('"entitys" is not a parameter of create_entities'),
        hint: expect.stringContaining('entities'),
      });
    const root = loadScenarioText(tool('{{args[*].name}}'), 'p.yaml');
    expect(!root.ok && root.problems[0]?.message).toMatch(/args is not a list/);
  });

  it('reads the same in the sandbox, the record and the independent oracle', async () => {
    const scenario = scenarioFrom(`
id: pick-and-ship
title: Reserve then ship
task: Ship the skus.
inputs: { skus: [a, b] }
tools:
  - name: reserve
    reversibility: reversible
    compensating_operation: release
    compensation_args: { skus: "{{args.items[*].sku}}" }
    parameters:
      type: object
      properties: { items: { type: array, items: { type: object, properties: { sku: { type: string } }, required: [sku] } } }
      required: [items]
    effects: [ { establish: "reserved(skus={{args.items[*].sku}})" } ]
  - name: release
    reversibility: reversible
    compensating_operation: reserve
    parameters: { type: object, properties: { skus: { type: array } }, required: [skus] }
    effects: [ { revoke: "reserved(skus={{args.skus}})" } ]
  - name: ship
    reversibility: irreversible
    preconditions: ["reserved(skus={{args.skus}})"]
    parameters: { type: object, properties: { skus: { type: array } }, required: [skus] }
    effects: [ { establish: "shipped(skus={{args.skus}})" } ]
goal: ["shipped(skus={{inputs.skus}})"]
`);
    const run = await runPlan(scenario, [
      // Speculative: the sibling declares it reserves ["a","b"], the very list ship needs.
      { parallel: [{ reserve: { items: [{ sku: 'a' }, { sku: 'b' }] } }, { ship: { skus: ['a', 'b'] } }] },
      { reserve: { items: [{ sku: 'a' }, { sku: 'b' }] } },
      { ship: { skus: ['a', 'b'] } },
      'finish',
    ]);
    const calls = run.events.filter((e): e is CallEvent => e.type === 'call');
    expect(calls[2]?.compensation).toMatchObject({ operation: 'release', args: { skus: ['a', 'b'] } });
    expect(calls[3]?.preconditions).toEqual({ held: ['reserved(skus="[\\"a\\",\\"b\\"]")'], missing: [] });
    const recorded = recordedScores(run.events);
    expect(recorded).toMatchObject({ completed: true, premature: { irreversible: 1 }, speculative: 1 });
    expect(oracleScores(run.events, scenario)).toEqual(recorded);
  });
});
