/**
 * An LLM planner over Chat Completions tool calling: one conversation per run,
 * one model answer per decision. A model's parallel tool calls in one message
 * are one batch; a plain-text answer finishes. Answers the harness cannot use
 * (unknown tools, bad arguments, refusals, empty answers) are fed back to the
 * model, a bounded number of times in a row. A request that cannot succeed
 * (authentication, retries exhausted, a replay miss) throws, which ends only
 * this run, with `error` set.
 */
import { setTimeout as wait } from 'node:timers/promises';
import type {
  Decision,
  Planner,
  PlannerContext,
  PlannerFactory,
  PlannerView,
  RejectedAttempt,
  ToolView,
} from '../../core/planner.ts';
import { seal } from '../../engine/sandbox/seal.ts';
import { deepFreeze } from '../../util/json.ts';
import { createRng, deriveSeed } from '../../util/rng.ts';
import { registerSecret } from '../../util/secrets.ts';
import { interpret, type Answer } from './answer.ts';
import { cachedModel } from './cassette.ts';
import type { ChatRequest, FunctionTool, ModelFn, ModelReply } from './chat.ts';
import { liveModel, ModelError } from './client.ts';
import { Conversation } from './conversation.ts';
import { llmOptions, type LlmOptions } from './options.ts';
import { systemPrompt, taskMessage } from './prompt.ts';
import { toolDefinitions, type Variant } from './tools.ts';
import { UsageMeter, type LlmUsage } from './usage.ts';

export interface LlmPlannerSpec {
  name: string;
  variant: Variant;
  description: string;
}

/** What tests replace: the clock, the environment, the network. */
export interface LlmDeps {
  /** Waits between retries (default: real time). Tests pass one that returns at once. */
  sleep?(ms: number): Promise<void>;
  /** Where OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL come from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  fetch?: typeof globalThis.fetch;
  /** Base of relative paths in options (default: the process's working directory). */
  cwd?: string;
}

export const EMPTY_NUDGE =
  'Your last answer was empty. Call a tool to make progress, or reply in plain text without tool calls when the task is done or cannot be done.';
export const REFUSAL_NUDGE =
  'Your last answer was a refusal. If the task cannot or should not be done, reply in plain text explaining why, without tool calls; otherwise call the tools.';

const excerpt = (s: string, n = 200) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > n ? `${flat.slice(0, n - 3)}...` : flat;
};

function modelFor(opts: LlmOptions, ctx: PlannerContext, deps: LlmDeps, env: NodeJS.ProcessEnv): ModelFn {
  const live = () =>
    liveModel(opts, {
      apiKey: env.OPENAI_API_KEY,
      rng: createRng(deriveSeed(ctx.seed, 'llm-retry')),
      sleep: deps.sleep ?? ((ms) => wait(ms)),
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
    });
  return opts.cache === 'off' ? live() : cachedModel(opts.cache, opts.cacheDir, live);
}

interface Opening {
  system: string;
  tools: FunctionTool[];
}

/** Openings by the view's tools and the variant: shared by every run of a scenario. */
const openings = new WeakMap<readonly ToolView[], Partial<Record<Variant, Opening>>>();

/**
 * The system prompt and the tool definitions, which depend on the view's tools alone. The runner
 * gives every run of a scenario the same deep-frozen tools, so they are made once and shared (frozen:
 * every request sends them), not per run: at --concurrency=128 every run in flight held its own copy
 * (npm run bench, LLM-bound case). Tools that are not frozen could change: those get their own.
 */
function openingFor(view: PlannerView, variant: Variant): Opening {
  if (!Object.isFrozen(view.tools))
    return { system: systemPrompt(view, variant), tools: toolDefinitions(view.tools, variant) };
  let byVariant = openings.get(view.tools);
  if (!byVariant) openings.set(view.tools, (byVariant = {}));
  return (byVariant[variant] ??= deepFreeze({
    system: systemPrompt(view, variant),
    tools: toolDefinitions(view.tools, variant),
  }));
}

class LlmRun implements Planner {
  private conv: Conversation | undefined;
  private tools: FunctionTool[] = [];
  private unusable = 0;
  private ids = 0;
  private readonly meter: UsageMeter;

  constructor(
    readonly name: string,
    private readonly variant: Variant,
    private readonly opts: LlmOptions,
    private readonly model: ModelFn,
    private readonly seed: number,
    /** Records the tool calls the harness could not run (`PlannerContext.reject`). */
    private readonly reject: (a: RejectedAttempt) => void = () => {},
  ) {
    this.meter = new UsageMeter(opts.model, opts.prices);
  }

  async next(view: PlannerView): Promise<Decision> {
    if (!this.conv) {
      const { system, tools } = openingFor(view, this.variant);
      this.conv = new Conversation(system, taskMessage(view, this.variant));
      this.tools = tools;
    }
    const conv = this.conv;
    conv.absorb(view.history);
    for (;;) {
      if (this.meter.answers >= this.opts.maxTurns) {
        return { type: 'finish', reason: `max_turns: ${this.opts.maxTurns} model answers without finishing` };
      }
      const reply = await this.ask(conv);
      const choice = reply.completion.choices[0];
      const answer = interpret(choice?.message, choice?.finish_reason, view.tools, () => `call_oneway_${++this.ids}`);
      // Calls that cannot run are answered in the conversation and recorded as rejected attempts.
      if (answer.kind === 'calls' || answer.kind === 'rejected')
        for (const s of answer.slots) if (s.rejected) this.reject(s.rejected);
      if (answer.kind === 'calls') {
        this.unusable = 0;
        conv.assistant(answer.message);
        conv.expect(answer.slots);
        const [only] = answer.calls;
        return answer.calls.length === 1 && only
          ? { type: 'call', call: only }
          : { type: 'batch', calls: answer.calls };
      }
      if (answer.kind === 'text') {
        return { type: 'finish', reason: `model${answer.truncated ? ' (truncated)' : ''}: ${excerpt(answer.text)}` };
      }
      const why = feedBack(conv, answer);
      if (++this.unusable >= this.opts.maxUseless) {
        return { type: 'finish', reason: `gave up: ${this.unusable} unusable model answers in a row (last: ${why})` };
      }
    }
  }

  usage(): LlmUsage {
    return this.meter.snapshot();
  }

  private request(conv: Conversation): ChatRequest {
    return {
      model: this.opts.model,
      messages: [...conv.messages],
      ...(this.tools.length ? { tools: this.tools } : {}),
      ...(this.opts.temperature !== null ? { temperature: this.opts.temperature } : {}),
      // Best-effort determinism where the server honours it; also part of the cassette key.
      seed: this.seed,
    };
  }

  private async ask(conv: Conversation): Promise<ModelReply> {
    try {
      const reply = await this.model(this.request(conv));
      this.meter.add(reply);
      return reply;
    } catch (e) {
      if (e instanceof ModelError) this.meter.addRetries(e.retries);
      throw e;
    }
  }
}

/** Shows the model what was wrong with an unusable answer; returns it in a few words. */
function feedBack(conv: Conversation, answer: Exclude<Answer, { kind: 'calls' | 'text' }>): string {
  if (answer.kind === 'rejected') {
    conv.assistant(answer.message);
    conv.replyAll(answer.slots);
    return answer.why;
  }
  if (answer.kind === 'refusal') {
    conv.refusal(answer.text);
    conv.nudge(REFUSAL_NUDGE);
    return `refusal: ${excerpt(answer.text, 120)}`;
  }
  // An empty answer is not echoed back: there is nothing in it for the model to see.
  conv.nudge(EMPTY_NUDGE);
  return answer.why;
}

/** A planner that cannot start throws its reason on the first decision: that run ends with `error` set. */
function broken(name: string, error: unknown): Planner {
  return {
    name,
    next() {
      throw error;
    },
  };
}

/**
 * The factory behind `--planner=openai` and `--planner=openai-aware`.
 *
 * @example
 * export default llmPlanner({ name: 'openai', variant: 'plain', description: '...' });
 * // tests: llmPlanner(spec, { sleep: async () => {}, env: { OPENAI_API_KEY: 'test' } })
 */
export function llmPlanner(spec: LlmPlannerSpec, deps: LlmDeps = {}): PlannerFactory {
  // Every run of an evaluation shares one options object: read once (a price_file is a file read), not per run.
  const read = new WeakMap<object, LlmOptions>();
  return {
    name: spec.name,
    description: spec.description,
    create(ctx) {
      const env = deps.env ?? process.env;
      let opts = read.get(ctx.options);
      if (!opts) {
        try {
          opts = llmOptions(ctx.options, env, deps.cwd);
        } catch (e) {
          return broken(spec.name, e);
        }
        read.set(ctx.options, opts);
      }
      // Whatever happens, the key is redacted from every file oneway writes.
      registerSecret(env.OPENAI_API_KEY, 'OPENAI_API_KEY');
      // The model endpoint is the one origin the seal lets out; a replay needs none.
      if (opts.cache !== 'replay') seal.allowOrigin(opts.baseURL);
      return new LlmRun(spec.name, spec.variant, opts, modelFor(opts, ctx, deps, env), ctx.seed, ctx.reject?.bind(ctx));
    },
  };
}
