/**
 * Array and object parameters (README "How planners fill arguments"): a required array or
 * object is filled from an input of the same name, the schema default, an earlier result's
 * field of the same name, and otherwise the smallest value its schema allows, checked with
 * the argument validator so the built call is never rejected.
 */
import { describe, expect, it } from 'vitest';
import eager from '../../planners/eager.ts';
import gated from '../../planners/gated.ts';
import { completeArgs } from '../../harness/domain/planner-kit/args.ts';
import { planningSources } from '../../harness/domain/planner-kit/sources.ts';
import { checkArguments } from '../../harness/domain/rules/arguments.ts';
import { minimalValue } from '../../harness/util/param-types.ts';
import type { CallEvent } from '../../harness/core/record.ts';
import { runPlanner, scenarioFrom } from '../helpers/run.ts';
import { tool, view } from './worlds.ts';

/** The memory server's create_entities (an array of objects) and a write with a nested object. */
const GRAPH_YAML = `
id: graph-tiny
title: Build a knowledge graph
task: Record the project in the knowledge graph, then write its config.
inputs: { path: /srv/app/config.json }
world: { facts: [], tables: {} }
tools:
  - name: create_entities
    reversibility: reversible
    compensating_operation: delete_entities
    compensation_args: { entityNames: [] }
    parameters:
      type: object
      properties:
        entities:
          type: array
          items:
            type: object
            properties:
              name: { type: string }
              entityType: { type: string }
              observations: { type: array, items: { type: string } }
            required: [name, entityType, observations]
      required: [entities]
    effects:
      - establish: graph_updated(kind=entities)
    returns: { created: 0 }
  - name: delete_entities
    reversibility: reversible
    compensating_operation: create_entities
    parameters:
      type: object
      properties: { entityNames: { type: array, items: { type: string } } }
      required: [entityNames]
  - name: write_config
    reversibility: irreversible
    preconditions: [graph_updated(kind=entities)]
    parameters:
      type: object
      properties:
        path: { type: string }
        options:
          type: object
          properties:
            mode: { type: string, enum: [overwrite, append] }
            retries: { type: integer, minimum: 1 }
            owner: { type: object, properties: { uid: { type: integer }, name: { type: string, minLength: 2 } }, required: [uid, name] }
          required: [mode, retries, owner]
          additionalProperties: false
      required: [path, options]
    effects:
      - establish: config_written(path={{args.path}})
goal: [graph_updated(kind=entities), config_written(path=/srv/app/config.json)]
max_steps: 6
`;

describe('array and object parameters', () => {
  it('makes the smallest value a schema allows', () => {
    expect(minimalValue({ type: 'array', items: { type: 'string' } })).toEqual([]);
    expect(
      minimalValue({
        type: 'array',
        minItems: 1,
        items: { type: 'object', properties: { a: { type: 'integer', minimum: 3 } }, required: ['a'] },
      }),
    ).toEqual([{ a: 3 }]);
    expect(
      minimalValue({ type: 'object', properties: { p: { type: 'string' } }, required: ['p'] }, (k) =>
        k === 'p' ? '/tmp/a' : undefined,
      ),
    ).toEqual({ p: '/tmp/a' });
    expect(
      minimalValue({ type: 'object', properties: { s: { type: 'string', pattern: '^a+$' } }, required: ['s'] }),
    ).toBeUndefined();
  });

  it('fills from, in order: an input of the same name, the default, an earlier result, the smallest value', () => {
    const t = tool({
      name: 'tag',
      params: { labels: { type: 'array', items: { type: 'string' }, minItems: 1, default: ['triage'] } },
    });
    const v = view({ tools: [t], goal: ['x(a=b)'] });
    const src = (inputs: Record<string, unknown>, results: unknown[] = []) => ({
      ...planningSources({ ...v, inputs }),
      obs: results.map((result, i) => ({ step: i + 1, tool: 'read', args: {}, status: 'ok' as const, result })),
    });
    expect(completeArgs(t, {}, src({ labels: ['bug'] })).args).toEqual({ labels: ['bug'] });
    expect(completeArgs(t, {}, src({})).args).toEqual({ labels: ['triage'] });
    const noDefault = tool({
      name: 'tag',
      params: { labels: { type: 'array', items: { type: 'string' }, minItems: 1 } },
    });
    expect(completeArgs(noDefault, {}, src({}, [{ labels: ['from-result'] }])).args).toEqual({
      labels: ['from-result'],
    });
    // An input that does not fit the schema is no value: the smallest fitting one is made instead.
    expect(completeArgs(noDefault, {}, src({ labels: [] })).args).toEqual({ labels: [''] });
    const pattern = tool({
      name: 'tag',
      params: { labels: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' }, minItems: 1 } },
    });
    expect(completeArgs(pattern, {}, src({})).unbound).toEqual(['labels']);
  });

  for (const planner of [gated, eager])
    it(`${planner.name} completes a scenario whose tools take an array of objects and a nested object`, async () => {
      const scenario = scenarioFrom(GRAPH_YAML);
      const out = await runPlanner(scenario, planner.create({ seed: 1, trial: 0, scenario: scenario.id, options: {} }));
      const calls = out.events.filter((e) => e.type === 'call') as CallEvent[];
      expect(out.events.filter((e) => e.type === 'rejected')).toEqual([]);
      const byTool = new Map(calls.map((c) => [c.tool, c.args]));
      expect(byTool.get('create_entities')).toEqual({ entities: [] });
      expect(byTool.get('write_config')).toEqual({
        path: '/srv/app/config.json',
        options: { mode: 'overwrite', retries: 1, owner: { uid: 0, name: 'xx' } },
      });
      for (const c of calls)
        expect(checkArguments(scenario.tools.find((t) => t.name === c.tool)!.parameters, c.args)).toEqual({ ok: true });
      expect(out.completed).toBe(true);
    });
});
