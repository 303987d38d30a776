/**
 * openai-aware: the same LLM agent as `openai`, told what oneway knows: each
 * tool's class as deployed, its compensation and preconditions, the facts known
 * at the start, the goal, and the policy the scores reward (irreversible tools never
 * called speculatively, never in a parallel batch, never retried after an
 * ambiguous failure without reconciling; preconditions first). The difference
 * between the two on one model is what the prompt buys.
 */
import { llmPlanner } from '../harness/features/llm/planner.ts';

export default llmPlanner({
  name: 'openai-aware',
  variant: 'aware',
  description:
    "The openai planner with each tool's class, compensation and preconditions in its definition and the reversibility policy in the system prompt.",
});
