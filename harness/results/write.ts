import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.ts';
import { redact } from '../util/secrets.ts';
import { RESULTS_SCHEMA_VERSION, type Results } from './types.ts';

export const RESULTS_FILE = 'results.json';

/** Writes `DIR/results.json` (pretty, newline-terminated, so diffs of committed baselines read well). */
export function writeResults(outDir: string, results: Results): void {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, RESULTS_FILE), redact(`${JSON.stringify(results, null, 2)}\n`));
}

export function readResults(dir: string): Results {
  const path = join(dir, RESULTS_FILE);
  let parsed: Results;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as Results;
  } catch (e) {
    throw new UsageError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'pass directories written by npm run eval (each holds results.json)');
  }
  if (parsed?.schema_version !== RESULTS_SCHEMA_VERSION) throw new UsageError(`${path} is not a oneway results file of schema_version ${RESULTS_SCHEMA_VERSION}`);
  return parsed;
}
