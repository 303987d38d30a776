/** Scenarios for the fuzzing tests: a soft delete whose restore is exact, and two whose restore leaves a trace. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLED_SCENARIOS } from '../../harness/cli/common.ts';
import { loadScenarioFile } from '../../harness/engine/loader/load.ts';
import type { Scenario } from '../../harness/core/scenario.ts';
import { scenarioFrom } from '../helpers/run.ts';
import { tempDir } from '../helpers/cli.ts';

/** Archiving notes: list them (read-only), then soft-delete one; restore_note undoes it. */
export const NOTES_YAML = `
id: archive-note
title: Archive a note
task: Archive note n1 after listing the notes.
inputs: { note: n1 }
world:
  facts: [note_live(note=n1), note_live(note=n2)]
  tables: { notes: [ { id: n1, text: hello, status: live }, { id: n2, text: bye, status: live } ] }
tools:
  - name: list_notes
    reversibility: reversible
    read_only: true
    parameters: { type: object, properties: {} }
    effects: [ { establish: notes_listed } ]
    returns: { count: 2 }
  - name: archive_note
    reversibility: reversible
    compensating_operation: restore_note
    compensation_args: { note: "{{args.note}}" }
    preconditions: [notes_listed]
    parameters: { type: object, properties: { note: { type: string } }, required: [note] }
    effects:
      - update: { table: notes, where: { id: "{{args.note}}" }, set: { status: archived } }
      - revoke: note_live(note={{args.note}})
    returns: { note: "{{args.note}}", status: archived }
  - name: restore_note
    reversibility: reversible
    compensating_operation: archive_note
    compensation_args: { note: "{{args.note}}" }
    parameters: { type: object, properties: { note: { type: string } }, required: [note] }
    effects:
      - update: { table: notes, where: { id: "{{args.note}}" }, set: { status: live } }
      - establish: note_live(note={{args.note}})
    returns: { note: "{{args.note}}", status: live }
goal: ["notes_listed"]
max_steps: 12
`;

/** The restore brings the row back with a changed field: the undo is not the same as never having deleted. */
export const CHANGED_FIELD_YAML = NOTES_YAML.replace('id: archive-note', 'id: archive-note-changed-field').replace(
  'set: { status: live } }',
  'set: { status: live, restored_by: agent } }',
);

/** The restore leaves an audit fact behind. */
const AUDIT_FACT_YAML = NOTES_YAML.replace('id: archive-note', 'id: archive-note-audit-fact').replace(
  '      - establish: note_live(note={{args.note}})\n',
  '      - establish: note_live(note={{args.note}})\n      - establish: note_restored(note={{args.note}})\n',
);

export const notes = scenarioFrom(NOTES_YAML);
export const changedField = scenarioFrom(CHANGED_FIELD_YAML);
export const auditFact = scenarioFrom(AUDIT_FACT_YAML);

/** Writes scenario YAML into a fresh directory; returns the file's path. */
export function scenarioFile(yaml: string, name = 'scenario.yaml'): string {
  const file = join(tempDir('oneway-fuzz-'), name);
  writeFileSync(file, yaml);
  return file;
}

const BUNDLED: Record<string, string> = {
  'invoice-and-notify': 'billing/invoice-and-notify.yaml',
  'webhook-timeout-reconcile': 'integrations/webhook-timeout-reconcile.yaml',
  'release-with-migration': 'deploys/release-with-migration.yaml',
  'refund-needs-authorisation': 'payments/refund-needs-authorisation.yaml',
  'purge-inactive-accounts': 'data/purge-inactive-accounts.yaml',
  'purge-inactive-accounts-no-pitr': 'data/purge-inactive-accounts-no-pitr.yaml',
};

/** A bundled scenario, loaded from its file (resolving an id would load the whole library). */
export function bundled(id: keyof typeof BUNDLED | string): Scenario {
  const file = BUNDLED[id];
  if (!file) throw new Error(`no bundled scenario ${id} in test/fuzz/fixtures.ts`);
  const loaded = loadScenarioFile(join(BUNDLED_SCENARIOS, file));
  if (!loaded.ok) throw new Error(loaded.problems.map((p) => p.message).join('\n'));
  return loaded.value.scenario;
}
