/**
 * The journal across restarts and at scale: a guard started again on its journal takes no fact
 * from it (facts are per session), an intent is written only
 * for a call that may take effect, and a reply over the journal's limit is journaled as what was
 * left out, never silently cut, while the client gets all of it.
 */
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resetSecrets } from '../../harness/util/secrets.ts';
import { MAX_JOURNALED_REPLY } from '../../harness/features/guard-proxy/proxy.ts';
import { tempDir } from '../helpers/cli.ts';
import {
  eventsOf,
  FILESYSTEM_SERVER,
  FILESYSTEM_TOOLS as FS_TOOLS,
  nodeServer,
  outcomes,
  textOf,
  toolsAt,
  useGuard,
} from './helpers.ts';

const startGuard = useGuard();
afterEach(() => {
  delete process.env.GUARD_TEST_API_KEY;
  resetSecrets();
});

function setup() {
  const dir = realpathSync(tempDir('oneway-guard-journal-'));
  const files = join(dir, 'files');
  mkdirSync(files);
  const journal = join(dir, 'journal.jsonl');
  const start = () =>
    startGuard({
      tools: toolsAt(FS_TOOLS),
      toolsFile: FS_TOOLS,
      target: nodeServer(FILESYSTEM_SERVER, [files]),
      journal,
    });
  return { files, journal, start };
}

describe("oneway guard's journal", () => {
  it('gives a guard started again on it no fact the first one observed: facts are per session', async () => {
    const { files, journal, start } = setup();
    const a = join(files, 'a.txt');
    writeFileSync(a, 'alpha');
    let guard = await start();
    expect((await guard.client.callTool({ name: 'read_text_file', arguments: { path: a } })).isError).toBeFalsy();
    await guard.close();
    // The file changes between the sessions: yesterday's read does not license today's overwrite.
    writeFileSync(a, 'changed meanwhile');
    guard = await start();
    const blind = await guard.client.callTool({ name: 'write_file', arguments: { path: a, content: 'beta' } });
    expect(textOf(blind)).toMatch(/^refused by oneway guard: .*file_read\(path=/);
    expect(readFileSync(a, 'utf8')).toBe('changed meanwhile');
    // Read in this session, it passes.
    await guard.client.callTool({ name: 'read_text_file', arguments: { path: a } });
    const write = await guard.client.callTool({ name: 'write_file', arguments: { path: a, content: 'beta' } });
    expect(textOf(write)).not.toContain('refused');
    expect(eventsOf(journal, 'run_start')).toHaveLength(1);
    expect(outcomes(journal).map((c) => [c.step, c.tool, c.status])).toEqual([
      [1, 'read_text_file', 'ok'],
      [2, 'write_file', 'blocked'],
      [3, 'read_text_file', 'ok'],
      [4, 'write_file', 'ok'],
    ]);
    // The read-only call changed nothing: no intent for it; the write has one.
    expect(eventsOf(journal, 'intent').map((i) => i.tool)).toEqual(['write_file']);
  });

  it('journals a reply over its limit as what was left out, and the client still gets all of it', async () => {
    const { files, journal, start } = setup();
    const big = join(files, 'big.txt');
    writeFileSync(big, 'x'.repeat(MAX_JOURNALED_REPLY + 10));
    const guard = await start();
    const read = await guard.client.callTool({ name: 'read_text_file', arguments: { path: big } });
    expect((read.structuredContent as { content: string }).content).toHaveLength(MAX_JOURNALED_REPLY + 10);
    const [entry] = outcomes(journal);
    expect(entry?.result).toEqual({
      'oneway/omitted': `a reply of ${MAX_JOURNALED_REPLY + 24} bytes, over the ${MAX_JOURNALED_REPLY} bytes the journal keeps of one`,
    });
    // Its effects are rendered from the whole reply all the same.
    expect(entry?.effects).toEqual([{ kind: 'establish', fact: `file_read(path=${big})`, was_new: true }]);
  });

  it('redacts secrets in every line, as every record is', async () => {
    process.env.GUARD_TEST_API_KEY = 'sk-guard-test-0123456789';
    resetSecrets();
    const { files, journal, start } = setup();
    const a = join(files, 'secret.txt');
    writeFileSync(a, 'x');
    const guard = await start();
    await guard.client.callTool({ name: 'read_text_file', arguments: { path: a } });
    const w = await guard.client.callTool({
      name: 'write_file',
      arguments: { path: a, content: 'token sk-guard-test-0123456789' },
    });
    expect(w.isError).toBeFalsy();
    const text = readFileSync(journal, 'utf8');
    expect(text).not.toContain('sk-guard-test-0123456789');
    expect(text).toContain('token [redacted:GUARD_TEST_API_KEY]');
  });

  it('refuses every call once it cannot be written, and lets the reply of a call the server had go back', async () => {
    const { files, start } = setup();
    const a = join(files, 'a.txt');
    writeFileSync(a, 'alpha');
    const guard = await start();
    await guard.client.callTool({ name: 'read_text_file', arguments: { path: a } });
    // The disk goes away under the journal.
    guard.journal.close();
    const read = await guard.client.callTool({ name: 'read_text_file', arguments: { path: a } });
    expect(read.structuredContent).toEqual({ content: 'alpha' });
    expect(guard.log.join('\n')).toMatch(
      /cannot be written: it is closed; step 2 \(read_text_file\) reached the server and is not journaled/,
    );
    const write = await guard.client.callTool({ name: 'write_file', arguments: { path: a, content: 'beta' } });
    expect(textOf(write)).toMatch(/^refused by oneway guard: the journal .* cannot be written/);
    expect(textOf(write)).toContain('Nothing was sent to the server.');
    expect(readFileSync(a, 'utf8')).toBe('alpha');
  });
});
