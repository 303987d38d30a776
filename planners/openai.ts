/**
 * openai: an LLM agent with Chat Completions tool calling, as an ordinary agent
 * framework would run it: the task, and the tools as plain function
 * definitions (name, description, parameters). No classes, no preconditions,
 * no policy. Any OpenAI-compatible server; see docs/llm.md.
 */
import { llmPlanner } from '../harness/features/llm/planner.ts';

export default llmPlanner({
  name: 'openai',
  variant: 'plain',
  description:
    'An LLM (OpenAI-compatible Chat Completions) given the task and the tools as plain function definitions.',
});
