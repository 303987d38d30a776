/**
 * The LLM cache of the model requests the harness carries for a planner file's process (namespace
 * mode), with the built-in LLM planners' semantics (`--llm-cache`): `record` makes each request and
 * keeps every good answer, `replay` answers from the directory only and never touches the network
 * (a miss is an error the planner sees). One JSON file per request in the same directory as the
 * built-in planners' cassettes, named by the SHA-256 of what determines the answer: the method, the
 * URL's origin and path, and the body (a JSON body with its keys sorted). Never a header (the
 * Authorization header carries the key) nor the query (a key may ride there too).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stableJson } from '../../util/json.ts';
import { redact } from '../../util/secrets.ts';

const CARRIED_VERSION = 1;

/** Where the LLM cache lives when `--llm-cache-dir` names no directory (relative to the working directory). */
const DEFAULT_LLM_CACHE_DIR = 'reports/llm-cache';

/** A planner's LLM cache: none when `llm_cache` is off or not set. */
export interface LlmCache {
  mode: 'record' | 'replay';
  dir: string;
}

/**
 * The LLM cache a planner's options configure (`llm_cache`, `llm_cache_dir`; checked by the request
 * that set them), undefined when off.
 *
 * @example
 * llmCacheOf({ llm_cache: 'replay', llm_cache_dir: '/p/cache' }) // { mode: 'replay', dir: '/p/cache' }
 */
export function llmCacheOf(options: Record<string, string> | undefined, cwd = process.cwd()): LlmCache | undefined {
  const mode = options?.llm_cache;
  if (mode !== 'record' && mode !== 'replay') return undefined;
  return { mode, dir: resolve(cwd, options?.llm_cache_dir ?? DEFAULT_LLM_CACHE_DIR) };
}

/** A model's answer as the harness carries it back: its body as bytes. */
export interface CarriedAnswer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Buffer;
}

/** What a cache file holds. The body is text when it is UTF-8 (so the secrets redactor sees it), else base64. */
interface CarriedFile {
  version: number;
  kind: 'carried';
  key: string;
  /** The request, for diffs when a prompt change misses the cache (no headers, no query). */
  request: { method: string; url: string; body?: string };
  response: { status: number; statusText: string; headers: [string, string][]; body: string; base64?: true };
}

/** The body as it is keyed: a JSON body by its value (keys sorted), any other by its bytes. */
function keyedBody(body: Buffer | undefined): string {
  if (body === undefined) return '';
  const text = body.toString('utf8');
  try {
    return `json ${stableJson(JSON.parse(text))}`;
  } catch {
    return `bytes ${body.toString('base64')}`;
  }
}

/**
 * The cache key of a carried request: equal method, origin, path and body give equal keys, whatever
 * the headers (the API key) or the query.
 *
 * @example
 * carriedKey('POST', new URL('https://api.openai.com/v1/chat/completions'), Buffer.from('{"a":1}'))
 */
export function carriedKey(method: string, url: URL, body: Buffer | undefined): string {
  return createHash('sha256')
    .update(`oneway-carried-v${CARRIED_VERSION}\n${method.toUpperCase()}\n${url.origin}${url.pathname}\n`)
    .update(keyedBody(body))
    .digest('hex');
}

const fileOf = (dir: string, key: string): string => join(dir, `${key}.json`);

/**
 * The answer kept for `key` in `dir`, undefined when none is. A file that is not one is an error
 * naming it (delete it and record again).
 */
export function readCarried(dir: string, key: string): CarriedAnswer | undefined {
  const file = fileOf(dir, key);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  let c: CarriedFile;
  try {
    c = JSON.parse(text) as CarriedFile;
  } catch (e) {
    throw new Error(`cached answer ${file} is not valid JSON (${(e as Error).message}); delete it and record again`);
  }
  const r = c.response as Partial<CarriedFile['response']> | undefined;
  if (
    c.version !== CARRIED_VERSION ||
    c.kind !== 'carried' ||
    c.key !== key ||
    typeof r?.status !== 'number' ||
    typeof r.statusText !== 'string' ||
    !Array.isArray(r.headers) ||
    typeof r.body !== 'string'
  )
    throw new Error(`${file} is not a cached answer for this request; delete it and record again`);
  return {
    status: r.status,
    statusText: r.statusText,
    headers: r.headers.filter((h) => Array.isArray(h) && typeof h[0] === 'string' && typeof h[1] === 'string'),
    body: Buffer.from(r.body, r.base64 ? 'base64' : 'utf8'),
  };
}

let tmpCounter = 0;

/** Keeps `answer` for `key` in `dir` (written aside, then renamed over: concurrent runs may record the same request). */
export function writeCarried(
  dir: string,
  key: string,
  request: { method: string; url: URL; body: Buffer | undefined },
  answer: CarriedAnswer,
): void {
  const utf8 = answer.body.toString('utf8');
  const text = Buffer.from(utf8, 'utf8').equals(answer.body);
  const c: CarriedFile = {
    version: CARRIED_VERSION,
    kind: 'carried',
    key,
    request: {
      method: request.method,
      url: `${request.url.origin}${request.url.pathname}`,
      ...(request.body !== undefined ? { body: request.body.toString('utf8') } : {}),
    },
    response: {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headers,
      ...(text ? { body: utf8 } : { body: answer.body.toString('base64'), base64: true }),
    },
  };
  mkdirSync(dir, { recursive: true });
  const file = fileOf(dir, key);
  const tmp = `${file}.${process.pid}.${tmpCounter++}.tmp`;
  // Like every file oneway writes, it passes through the secrets redactor (no header is ever in it).
  writeFileSync(tmp, redact(`${JSON.stringify(c, null, 2)}\n`));
  renameSync(tmp, file);
}
