/**
 * Record and replay of model answers, so CI can compare LLM planners
 * deterministically and for free. A cassette is one JSON file per request,
 * named by the SHA-256 of the canonical request body (model, messages, tools,
 * temperature, seed, ...; keys sorted). Headers are never part of the key or
 * the file: the API key cannot end up in a cassette.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stableJson } from '../../util/json.ts';
import { redact } from '../../util/secrets.ts';
import type { ChatCompletion, ChatRequest, MessageParam, ModelFn } from './chat.ts';
import { ModelError } from './client.ts';

const CASSETTE_VERSION = 1;

export interface Cassette {
  version: number;
  key: string;
  /** The request as sent (for diffs when a prompt change misses the cache). */
  request: ChatRequest;
  response: ChatCompletion;
  /** Retries the recording took; replayed so a replayed run reports the same usage. */
  retries: number;
}

/**
 * The cassette key of a request: equal bodies give equal keys, whatever their key order.
 *
 * @example
 * requestKey({ model: 'm', messages: [] }) === requestKey({ messages: [], model: 'm' }) // true
 */
export function requestKey(request: ChatRequest): string {
  return createHash('sha256')
    .update(`oneway-cassette-v${CASSETTE_VERSION}\n${stableJson(request)}`)
    .digest('hex');
}

export const cassetteFile = (dir: string, key: string): string => join(dir, `${key}.json`);

function excerpt(m: MessageParam | undefined): string {
  if (!m) return '(no messages)';
  let text: string;
  if (typeof m.content === 'string') text = m.content;
  else if (Array.isArray(m.content)) text = m.content.map((p) => ('text' in p ? p.text : `[${p.type}]`)).join(' ');
  else if (m.role === 'assistant' && m.tool_calls)
    text = m.tool_calls.map((t) => (t.type === 'function' ? t.function.name : t.custom.name)).join(', ');
  else text = '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return `${m.role}: "${flat.length > 120 ? `${flat.slice(0, 117)}...` : flat}"`;
}

let tmpCounter = 0;

function write(dir: string, c: Cassette): void {
  mkdirSync(dir, { recursive: true });
  const file = cassetteFile(dir, c.key);
  // Concurrent runs may record the same request: write aside, then rename over.
  const tmp = `${file}.${process.pid}.${tmpCounter++}.tmp`;
  // Like every file oneway writes, a cassette passes through the secrets redactor (a second line: no header is ever in it).
  writeFileSync(tmp, redact(`${JSON.stringify(c, null, 2)}\n`));
  renameSync(tmp, file);
}

function read(dir: string, key: string): Cassette | undefined {
  const file = cassetteFile(dir, key);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  let c: Cassette;
  try {
    c = JSON.parse(text) as Cassette;
  } catch (e) {
    throw new ModelError(`cassette ${file} is not valid JSON (${(e as Error).message}); delete it and record again`, 0);
  }
  if (c.version !== CASSETTE_VERSION || c.key !== key || typeof c.response !== 'object' || c.response === null) {
    throw new ModelError(
      `cassette ${file} is not a version ${CASSETTE_VERSION} cassette for this request; delete it and record again`,
      0,
    );
  }
  return c;
}

/** The error a replay miss throws: it names the request so a stale cassette set can be found. */
function replayMissMessage(request: ChatRequest, key: string, dir: string): string {
  return (
    `replay miss: no cassette for request ${key} (model ${request.model}, ${request.messages.length} messages, ` +
    `last ${excerpt(request.messages.at(-1))}) in ${dir}; run with --llm-cache=record to record it`
  );
}

/**
 * Puts a cassette directory in front of a model. `record` asks the live model and writes every
 * answer; `replay` answers from the directory only and never touches the network.
 *
 * @example
 * const model = cachedModel('replay', 'test/fixtures/llm/cassettes', () => liveModel(opts, deps));
 */
export function cachedModel(mode: 'record' | 'replay', dir: string, live: () => ModelFn): ModelFn {
  let model: ModelFn | undefined;
  return async (request) => {
    const key = requestKey(request);
    if (mode === 'replay') {
      const c = read(dir, key);
      if (!c) throw new ModelError(replayMissMessage(request, key, dir), 0);
      return { completion: structuredClone(c.response), retries: c.retries };
    }
    model ??= live();
    const reply = await model(request);
    write(dir, { version: CASSETTE_VERSION, key, request, response: reply.completion, retries: reply.retries });
    return reply;
  };
}
