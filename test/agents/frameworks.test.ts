/**
 * The framework examples (examples/agents/openai-agents, examples/agents/ai-sdk) run as
 * `--agent-cmd` agents against invoice-and-notify, each behind the examples' own scripted model
 * (examples/agents/offline.mjs serving fake-model.mjs in the agent's process, on loopback: no
 * network), once acting prematurely and once in the right order; the scores show the difference.
 * Each agent.ts is compiled once, here, by esbuild (as tsx would in every agent process), and its
 * `oneway/agents` is the installed package's (the compiled dist/).
 * That the examples run from an installed oneway is the consumer smoke test's (scripts/consumer-smoke.sh).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
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

interface Esbuild {
  transformSync(code: string, options: Record<string, unknown>): { code: string };
}
const compiledDir = tempDir('oneway-agents-');
const compiled = new Map<string, string>();

/**
 * The example's agent.ts as JavaScript (esbuild, the one tsx brings), in a file of its own, compiled
 * once for both of its runs. A loader in each agent process (tsx, or module hooks) costs that
 * process about as much CPU again as loading the framework itself.
 */
function compiledAgent(example: string): string {
  const done = compiled.get(example);
  if (done) return done;
  const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))('esbuild') as Esbuild;
  const source = resolve(REPO_ROOT, `examples/agents/${example}/agent.ts`);
  const file = join(compiledDir, `${example}.mjs`);
  const js = esbuild.transformSync(readFileSync(source, 'utf8'), { loader: 'ts', format: 'esm', sourcefile: source });
  writeFileSync(file, js.code);
  compiled.set(example, file);
  return file;
}

async function evalAgent(example: string, order: 'premature' | 'correct') {
  const outDir = tempDir(`oneway-${example}-`);
  const agent = agentPlanner({
    // The compiled module's text run from the repository (node -e): its imports resolve as agent.ts's
    // do, packages from node_modules and `oneway/agents` from package.json "exports".
    command: `"${process.execPath}" --import ./examples/agents/offline.mjs --input-type=module -e "$(cat '${compiledAgent(example)}')"`,
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
