/** An evaluation written to a temporary directory with the html reporter, for the report tests. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../harness/cli/eval.ts';
import type { CallEvent, RecordEvent } from '../../harness/core/record.ts';
import type { Results, RunResult } from '../../harness/engine/results/types.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

export interface Evaluated {
  dir: string;
  results: Results;
  html: string;
}

/** Runs `npm run eval` in-process (in-process transport) with `--reporter=html` and reads what it wrote. */
export async function evaluateWithHtml(args: readonly string[]): Promise<Evaluated> {
  const dir = tempDir('oneway-html-');
  const r = await runCli(main, [...args, '--transport=inprocess', `--out=${dir}`, '--reporter=html']);
  if (r.code !== 0) throw new Error(`eval exited ${r.code}: ${r.stderr}`);
  return {
    dir,
    results: JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Results,
    html: readFileSync(join(dir, 'report.html'), 'utf8'),
  };
}

/** The first run with a premature irreversible call, and that call's event from the record. */
export function prematureIrreversible(e: Evaluated): { run: RunResult; call: CallEvent } {
  for (const run of e.results.runs) {
    const f = run.findings.find((x) => x.kind === 'premature' && x.class === 'irreversible');
    if (!f) continue;
    const events = readFileSync(join(e.dir, run.record), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as RecordEvent);
    const call = events.find((x): x is CallEvent => x.type === 'call' && x.step === f.step);
    if (call) return { run, call };
  }
  throw new Error('no run with a premature irreversible call');
}

/** The embedded data block of a report, parsed. */
export function embeddedData(html: string): unknown {
  const open = '<script type="application/json" id="oneway-data">';
  const start = html.indexOf(open);
  if (start < 0) throw new Error('no data block');
  const end = html.indexOf('</script>', start);
  return JSON.parse(html.slice(start + open.length, end));
}
