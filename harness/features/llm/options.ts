/**
 * The LLM planners' settings, from `--planner-opt key=value` and the
 * environment (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, `OPENAI_MODEL`). Options
 * win over the environment. The API key is read from the environment only,
 * never from an option: options end up in shell history and CI logs.
 */
import { resolve } from 'node:path';
import { UsageError } from '../../core/errors.ts';
import { loadPriceFile, parsePrices, type PriceTable } from './prices.ts';
import { trimRuns } from '../../util/trim.ts';

type CacheMode = 'off' | 'record' | 'replay';

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';
const DEFAULT_MODEL = 'gpt-4o-mini';
const DEFAULT_CACHE_DIR = 'reports/llm-cache';

export interface LlmOptions {
  model: string;
  /** null: not sent (for models that accept only their default). */
  temperature: number | null;
  /** Model answers per run before the planner finishes on its own. */
  maxTurns: number;
  baseURL: string;
  /** Retries of one request after a 429, a 5xx or a connection failure. */
  maxRetries: number;
  /** First backoff step; each retry doubles it (with jitter). 0 never waits. */
  retryBaseMs: number;
  /** Consecutive unusable answers (refusals, empty, only invalid calls) before the planner gives up. */
  maxUseless: number;
  /** Real time one request may take. */
  timeoutMs: number;
  cache: CacheMode;
  cacheDir: string;
  prices: PriceTable;
}

function int(raw: Record<string, string>, key: string, fallback: number, min: number): number {
  const text = raw[key];
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(n) || n < min)
    throw new UsageError(
      `openai: ${key} must be a whole number >= ${min}, got "${text}"`,
      `e.g. --planner-opt ${key}=${fallback}`,
    );
  return n;
}

function temperature(text: string | undefined): number | null {
  if (text === undefined) return 0;
  if (text === 'omit') return null;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > 2)
    throw new UsageError(
      `openai: temperature must be a number in [0, 2] or "omit", got "${text}"`,
      'e.g. --planner-opt temperature=0',
    );
  return n;
}

function baseURL(text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new UsageError(
      `openai: base_url is not a URL: "${text}"`,
      'e.g. --planner-opt base_url=http://localhost:11434/v1',
    );
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new UsageError(`openai: base_url must be http or https, got "${text}"`);
  if (u.username || u.password)
    throw new UsageError('openai: base_url must not carry credentials', 'put the key in OPENAI_API_KEY');
  return trimRuns(u.href, '/', 'end');
}

function cacheMode(text: string | undefined): CacheMode {
  const mode = text ?? 'off';
  if (mode !== 'off' && mode !== 'record' && mode !== 'replay')
    throw new UsageError(`--llm-cache must be off, record or replay, got "${mode}"`);
  return mode;
}

/**
 * Reads the options an LLM planner understands; other keys belong to other planners and are ignored.
 *
 * @example
 * llmOptions({ model: 'llama3.1', base_url: 'http://localhost:11434/v1' }, process.env).baseURL // 'http://localhost:11434/v1'
 */
export function llmOptions(raw: Record<string, string>, env: NodeJS.ProcessEnv, cwd = process.cwd()): LlmOptions {
  const prices: PriceTable = {};
  if (raw.price_file !== undefined) Object.assign(prices, loadPriceFile(resolve(cwd, raw.price_file)));
  if (raw.prices !== undefined) Object.assign(prices, parsePrices(raw.prices, '--planner-opt prices'));
  const model = raw.model ?? env.OPENAI_MODEL ?? DEFAULT_MODEL;
  if (model.trim() === '') throw new UsageError('openai: model must not be empty');
  return {
    model,
    temperature: temperature(raw.temperature),
    maxTurns: int(raw, 'max_turns', 30, 1),
    baseURL: baseURL(raw.base_url ?? env.OPENAI_BASE_URL ?? OPENAI_BASE_URL),
    maxRetries: int(raw, 'max_retries', 5, 0),
    retryBaseMs: int(raw, 'retry_base_ms', 500, 0),
    maxUseless: int(raw, 'max_useless', 3, 1),
    timeoutMs: int(raw, 'timeout_ms', 60_000, 1),
    cache: cacheMode(raw.llm_cache),
    cacheDir: resolve(cwd, raw.llm_cache_dir ?? DEFAULT_CACHE_DIR),
    prices,
  };
}
