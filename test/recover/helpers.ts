/** Recovery test helpers: run decisions against a scenario file through the real run loop and write the record as JSONL. */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Decision } from '../../harness/core/planner.ts';
import type { RecordEvent } from '../../harness/core/record.ts';
import { memorySink } from '../../harness/engine/record/writer.ts';
import { parseRecordText, type ParsedRecord } from '../../harness/engine/record/reader.ts';
import { runOne } from '../../harness/engine/runner/run.ts';
import type { Scenario } from '../../harness/core/scenario.ts';
import { tempDir } from '../helpers/cli.ts';
import { fixedPlanner, scenarioAt } from '../helpers/run.ts';

export const NOTES = fileURLToPath(new URL('./fixtures/notes.yaml', import.meta.url));
export const INVOICE = resolve(
  fileURLToPath(new URL('../../scenarios/billing/invoice-and-notify.yaml', import.meta.url)),
);

export interface Recorded {
  /** The JSONL file. */
  file: string;
  text: string;
  events: RecordEvent[];
  record: ParsedRecord;
  scenario: Scenario;
}

/** Runs fixed decisions against a scenario file and writes the record where `recover` will read it. */
export async function record(scenarioFile: string, decisions: Decision[], seed = 11): Promise<Recorded> {
  const scenario = scenarioAt(scenarioFile);
  const sink = memorySink();
  await runOne({
    scenario,
    scenarioFile,
    planner: { name: 'fixed', create: () => fixedPlanner(decisions) },
    plannerContext: { options: {} },
    trial: 1,
    seed,
    runId: `${scenario.id}/fixed/1`,
    sink,
    transport: 'inprocess',
    maxTurns: 50,
    decisionTimeoutMs: 30_000, // a safety net: these planners answer at once, however busy the machine
  });
  const text = sink.events.map((e) => `${JSON.stringify(e)}\n`).join('');
  const file = join(tempDir('oneway-recover-'), 'fixed-t1.jsonl');
  writeFileSync(file, text);
  const parsed = parseRecordText(text, file);
  if (!parsed.ok) throw new Error('record does not parse');
  return { file, text, events: sink.events, record: parsed.value, scenario };
}
