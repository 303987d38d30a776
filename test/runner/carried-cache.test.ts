/**
 * The LLM cache of the model requests the harness carries for a planner file's process
 * (harness/engine/runner/carried-cache.ts): what a request is keyed by, what a file holds, and
 * that a file that is not one is an error naming it. The record/replay through a real planner
 * process is in test/reliability/seal-namespace.test.ts (it needs a network namespace).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { carriedKey, llmCacheOf, readCarried, writeCarried } from '../../harness/engine/runner/carried-cache.ts';
import { tempDir } from '../helpers/cli.ts';

const url = (u: string) => new URL(u);
const body = (s: string) => Buffer.from(s, 'utf8');

describe('carried requests in the LLM cache', () => {
  it('are keyed by method, origin, path and body: not the query, and a JSON body by its value', () => {
    const k = carriedKey('POST', url('https://api.example/v1/chat'), body('{"model":"m","n":1}'));
    expect(carriedKey('post', url('https://api.example/v1/chat?key=sk-1'), body('{"n":1,"model":"m"}'))).toBe(k);
    expect(carriedKey('POST', url('https://api.example/v1/chat'), body('{"model":"m","n":2}'))).not.toBe(k);
    expect(carriedKey('POST', url('https://api.example/v2/chat'), body('{"model":"m","n":1}'))).not.toBe(k);
    expect(carriedKey('POST', url('http://api.example/v1/chat'), body('{"model":"m","n":1}'))).not.toBe(k);
    expect(carriedKey('GET', url('https://api.example/v1/chat'), body('{"model":"m","n":1}'))).not.toBe(k);
    expect(carriedKey('POST', url('https://api.example/v1/chat'), undefined)).not.toBe(k);
  });

  it('are off unless llm_cache is record or replay; the directory defaults to reports/llm-cache', () => {
    expect(llmCacheOf(undefined)).toBeUndefined();
    expect(llmCacheOf({ llm_cache: 'off' })).toBeUndefined();
    expect(llmCacheOf({ llm_cache: 'replay' }, '/p')).toEqual({ mode: 'replay', dir: '/p/reports/llm-cache' });
    expect(llmCacheOf({ llm_cache: 'record', llm_cache_dir: 'c' }, '/p')).toEqual({ mode: 'record', dir: '/p/c' });
  });

  it('keep an answer (a text body as text, a binary one as base64) and give it back; a missing one is undefined', () => {
    const dir = tempDir('oneway-carried-');
    const u = url('https://api.example/v1/chat?key=sk-query');
    const text = {
      status: 200,
      statusText: 'OK',
      headers: [['content-type', 'application/json']] as [string, string][],
      body: body('{"a":"é"}'),
    };
    const bin = { ...text, body: Buffer.from([0xff, 0x00, 0xfe]) };
    writeCarried(dir, 'k1', { method: 'POST', url: u, body: body('{}') }, text);
    writeCarried(dir, 'k2', { method: 'POST', url: u, body: undefined }, bin);
    expect(readCarried(dir, 'k1')).toEqual(text);
    expect(readCarried(dir, 'k2')).toEqual(bin);
    expect(readCarried(dir, 'k3')).toBeUndefined();
    const file = readFileSync(join(dir, 'k1.json'), 'utf8');
    expect(file).toContain('{\\"a\\":\\"é\\"}');
    expect(file).not.toContain('sk-query');
  });

  it('a file that is not valid JSON, or not a cached answer for this key, is an error naming it', () => {
    const dir = tempDir('oneway-carried-');
    writeFileSync(join(dir, 'bad.json'), '{ not json');
    expect(() => readCarried(dir, 'bad')).toThrow(/bad\.json is not valid JSON .*delete it and record again/);
    // A cassette of the bundled planners in the same directory is not a carried answer.
    writeFileSync(join(dir, 'other.json'), JSON.stringify({ version: 1, key: 'other', request: {}, response: {} }));
    expect(() => readCarried(dir, 'other')).toThrow(/other\.json is not a cached answer for this request/);
  });
});
