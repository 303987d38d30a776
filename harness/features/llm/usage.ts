/**
 * Token usage of one run, as `planner.usage()` reports it (carried into the
 * record's `run_end.usage` and `results.json`), with an estimated cost when the
 * price table names the model.
 */
import type { ModelReply } from './chat.ts';
import { estimateCost, type PriceTable } from './prices.ts';

export interface LlmUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** Model answers received (replayed answers count too). */
  requests: number;
  /** Failed attempts that were retried (429, 5xx, connection). */
  retries: number;
  model: string;
  estimated_cost_usd: number | null;
}

/**
 * Adds up the usage of every answer of one run.
 *
 * @example
 * const meter = new UsageMeter('gpt-4o-mini', {});
 * meter.add({ completion, retries: 1 });
 * meter.snapshot().retries // 1
 */
export class UsageMeter {
  private prompt = 0;
  private completion = 0;
  private requests = 0;
  private retries = 0;

  constructor(
    private readonly model: string,
    private readonly prices: PriceTable,
  ) {}

  add(reply: ModelReply): void {
    this.requests++;
    this.retries += reply.retries;
    this.prompt += reply.completion.usage?.prompt_tokens ?? 0;
    this.completion += reply.completion.usage?.completion_tokens ?? 0;
  }

  get answers(): number {
    return this.requests;
  }

  /** Retries of a request that never got an answer still cost time and quota. */
  addRetries(n: number): void {
    this.retries += n;
  }

  snapshot(): LlmUsage {
    return {
      prompt_tokens: this.prompt,
      completion_tokens: this.completion,
      requests: this.requests,
      retries: this.retries,
      model: this.model,
      estimated_cost_usd: estimateCost(this.prices, this.model, this.prompt, this.completion),
    };
  }
}
