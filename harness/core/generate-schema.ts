/**
 * Writes `harness/schema/scenario.schema.json` from the zod schema, for editors:
 * `# yaml-language-server: $schema=../harness/schema/scenario.schema.json`.
 * Run with `npm run schema`; a test fails when the committed file is stale.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { Scenario } from './scenario.ts';

export const SCHEMA_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', 'schema', 'scenario.schema.json');

/**
 * The JSON Schema of a scenario file as text (what authors write, so defaults make fields optional).
 *
 * @example
 * JSON.parse(scenarioJsonSchemaText()).title // 'oneway scenario'
 */
export function scenarioJsonSchemaText(): string {
  // draft-07: the dialect YAML editors (yaml-language-server) support best.
  const generated = z.toJSONSchema(Scenario, { io: 'input', target: 'draft-07', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  const { $schema, ...rest } = generated;
  const schema = {
    // No `$id`: an `$id` is a URL, and no published copy exists to point at until the first release. Editors
    // point at the installed file (node_modules/oneway/harness/schema/, package export oneway/schema.json).
    $schema,
    title: 'oneway scenario',
    description:
      'A oneway evaluation scenario: a task, the tools an agent may call (each classed reversible, compensable or ' +
      'irreversible, with preconditions and effects as facts), the world they act on, and the goal. ' +
      'Generated from harness/core/scenario.ts by `npm run schema`; do not edit by hand.',
    ...rest,
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(SCHEMA_FILE, scenarioJsonSchemaText());
  process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
}
