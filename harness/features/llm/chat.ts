/**
 * The Chat Completions types oneway uses, imported once from the official
 * `openai` package so every LLM module speaks the SDK's own shapes.
 */
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';

export type {
  ChatCompletion,
  ChatCompletionFunctionTool as FunctionTool,
  ChatCompletionMessage as AssistantMessage,
  ChatCompletionMessageFunctionToolCall as FunctionToolCall,
  ChatCompletionMessageParam as MessageParam,
} from 'openai/resources/chat/completions';

/** The body of one chat request: what a cassette's key is computed from (never the headers). */
export type ChatRequest = ChatCompletionCreateParamsNonStreaming;

/** One model answer and how many failed attempts it took to get it. */
export interface ModelReply {
  completion: ChatCompletion;
  retries: number;
}

/** Something that answers chat requests: the live API, or a cassette in front of it. */
export type ModelFn = (request: ChatRequest) => Promise<ModelReply>;
