/** Shared by the LLM planner tests: the planners with test dependencies, an evaluation against the mock model, output files. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { llmPlanner, type LlmDeps } from '../../harness/features/llm/planner.ts';
import type { Variant } from '../../harness/features/llm/tools.ts';
import type { RecordEvent } from '../../harness/core/record.ts';
import type { Results } from '../../harness/engine/results/types.ts';
import { evaluate } from '../../harness/engine/runner/evaluate.ts';
import type { BatchGate } from '../../harness/engine/runner/gate.ts';
import type { PlannerHandle } from '../../harness/engine/runner/run.ts';
import type { Scenario } from '../../harness/core/scenario.ts';
import { tempDir } from '../helpers/cli.ts';
import { EMAIL_YAML, scenarioFrom } from '../helpers/run.ts';
import type { MockModel } from './mock-model.ts';

/** A key that must never be written anywhere. */
export const CANARY = 'sk-canary-7f3a9c1e5b2d4680-never-write-me';

export const email = scenarioFrom(EMAIL_YAML);

export interface TestDeps {
  sleeps: number[];
  deps: LlmDeps;
}

/** Dependencies for tests: no real waiting (each wait is recorded), the canary key, no process.env. */
export function testDeps(env: NodeJS.ProcessEnv = { OPENAI_API_KEY: CANARY }): TestDeps {
  const sleeps: number[] = [];
  return { sleeps, deps: { sleep: async (ms) => void sleeps.push(ms), env } };
}

export function plannerOf(variant: Variant, deps: LlmDeps): PlannerHandle {
  const f = llmPlanner({ name: variant === 'plain' ? 'openai' : 'openai-aware', variant, description: 'test' }, deps);
  return { name: f.name, create: (ctx) => f.create(ctx) };
}

export interface EvalLlm {
  planners: PlannerHandle[];
  options?: Record<string, string>;
  scenarios?: Scenario[];
  outDir?: string;
  trials?: number;
  gate?: BatchGate;
}

/** An evaluation through the real runner and seal, with the model at `mock.baseURL`. */
export async function evalLlm(
  mock: Pick<MockModel, 'baseURL'> | null,
  e: EvalLlm,
): Promise<Results & { outDir: string }> {
  const outDir = e.outDir ?? tempDir('oneway-llm-');
  const results = await evaluate({
    scenarios: (e.scenarios ?? [email]).map((scenario) => ({ scenario, file: `${scenario.id}.yaml` })),
    planners: e.planners,
    trials: e.trials ?? 1,
    seed: 3,
    outDir,
    transport: 'msw',
    maxTurns: 20,
    decisionTimeoutMs: 60_000, // a safety net: the mocked model answers at once, however busy the machine
    plannerOptions: { ...(mock ? { base_url: mock.baseURL } : {}), model: 'mock-1', ...e.options },
    ...(e.gate ? { gate: e.gate } : {}),
  });
  return { ...results, outDir };
}

/** Every file under a directory, recursively. */
export function readRecord(outDir: string, record: string): RecordEvent[] {
  return readFileSync(join(outDir, record), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RecordEvent);
}
