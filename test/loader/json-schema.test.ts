import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCHEMA_FILE, scenarioJsonSchemaText } from '../../harness/core/generate-schema.ts';

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
    // No URL of a copy that does not exist: no `$id` (editors use the installed file), and the only URL is the
    // dialect's.
    expect(schema).not.toHaveProperty('$id');
    expect(scenarioJsonSchemaText().match(/https?:\/\/[^"\s]+/g)).toEqual(['http://json-schema.org/draft-07/schema#']);
    expect(schema.description).toContain('reversible, compensable or irreversible');
    expect(schema.required).toEqual(['id', 'title', 'task', 'tools', 'goal']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.tools?.items?.required).toEqual(['name', 'reversibility']);
    expect(Object.keys(schema.properties.tools?.items?.properties ?? {})).toContain('compensating_operation');
  });
});
