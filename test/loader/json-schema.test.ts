import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCHEMA_FILE, scenarioJsonSchemaText, schemaId } from '../../harness/core/generate-schema.ts';

describe('the committed scenario JSON Schema', () => {
  it('equals a fresh generation from the zod schema (run `npm run schema` when this fails)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(scenarioJsonSchemaText());
  });

  it('describes what authors write: required fields only where there is no default', () => {
    const schema = JSON.parse(scenarioJsonSchemaText()) as {
      title: string;
      description: string;
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, { items?: { required?: string[]; properties?: Record<string, unknown> } }>;
    };
    expect(schema.title).toBe('oneway scenario');
    // A stable URL (the published package, by major version) for editors, as package export oneway/schema.json.
    expect((schema as { $id?: string }).$id).toBe(schemaId());
    expect(schemaId('1.4.2')).toBe('https://unpkg.com/oneway@1/harness/schema/scenario.schema.json');
    expect(schema.description).toContain('reversible, compensable or irreversible');
    expect(schema.required).toEqual(['id', 'title', 'task', 'tools', 'goal']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.tools?.items?.required).toEqual(['name', 'reversibility']);
    expect(Object.keys(schema.properties.tools?.items?.properties ?? {})).toContain('compensating_operation');
  });
});
