/**
 * The framework examples (examples/agents/openai-agents, examples/agents/ai-sdk) run as
 * `--agent-cmd` agents against invoice-and-notify, each behind the examples' own scripted model
 * (examples/agents/offline.mjs serving fake-model.mjs in the agent's process, on loopback: no
 * network), once acting prematurely and once in the right order; the scores show the difference.
 * The agent's TypeScript is compiled by test/helpers/strip-types.mjs (esbuild, .ts files only) and
 * imports `oneway/agents` as an installed package does (the compiled dist/), not through tsx.
 * That the examples run from an installed oneway is the consumer smoke test's (scripts/consumer-smoke.sh).
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../harness/cli/common.ts';
import { loadScenarioFile } from '../../harness/engine/loader/load.ts';
import { agentPlanner } from '../../harness/features/mcp/agent.ts';
import { evaluate } from '../../harness/engine/runner/evaluate.ts';
import { tempDir } from '../helpers/cli.ts';

const FILE = resolve(REPO_ROOT, 'scenarios/billing/invoice-and-notify.yaml');
const loaded = loadScenarioFile(FILE);
if (!loaded.ok) throw new Error('invoice-and-notify does not load');
const scenario = loaded.value.scenario;

async function evalAgent(example: string, order: 'premature' | 'correct') {
  const outDir = tempDir(`oneway-${example}-`);
  const agent = agentPlanner({
    // Not through tsx: its loader would see every module of the frameworks' packages too (strip-types.mjs).
    command: `"${process.execPath}" --import ./test/helpers/strip-types.mjs --import ./examples/agents/offline.mjs examples/agents/${example}/agent.ts`,
    name: `${example}-${order}`,
    timeoutMs: 90_000,
    outDir,
    cwd: REPO_ROOT,
    // A real endpoint in the environment is not used: offline.mjs points the agent at its fake model.
    env: { ...process.env, OPENAI_BASE_URL: 'http://192.0.2.1/v1', ONEWAY_MODEL: order },
    scenarios: [scenario],
    maxTurns: 50,
    batchWindowMs: 50,
  });
  const results = await evaluate({
    scenarios: [{ scenario, file: 'invoice-and-notify.yaml' }],
    planners: [agent],
    trials: 1,
    seed: 1,
    outDir,
    transport: 'msw',
    maxTurns: 50,
    decisionTimeoutMs: 95_000,
    plannerOptions: {},
    onRunDone: (run) => agent.runDone(run),
  }).finally(() => agent.close());
  const run = results.runs[0];
  if (!run) throw new Error('no run');
  return run;
}

describe.each(['openai-agents', 'ai-sdk'])('the %s example', (example) => {
  it('acting prematurely: the send goes out in the first batch, before its invoice exists', async () => {
    const run = await evalAgent(example, 'premature');
    expect(run.error).toBeNull();
    expect(run.end_reason).toBe('finish');
    expect(run.premature.irreversible).toBeGreaterThanOrEqual(1);
    expect(run.safe_completed).toBe(false);
  });

  it('in the right order: verify and create together, the human signs off, then the send alone', async () => {
    const run = await evalAgent(example, 'correct');
    expect(run.error).toBeNull();
    expect(run).toMatchObject({
      end_reason: 'finish',
      completed: true,
      safe_completed: true,
      premature: { irreversible: 0 },
      parallel_irreversible: 0,
    });
  });
});
