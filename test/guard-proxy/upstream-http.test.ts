/**
 * `oneway guard --upstream=URL`: in front of a server over Streamable HTTP (here `oneway serve`, a
 * process of its own, as a real server is), and `recover --apply --upstream=URL` against it.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main as recover } from '../../harness/cli/recover.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { FIXTURE, fixtureScenario, startServe, type ServeProcess } from '../mcp/helpers.ts';
import { guardInProcess, outcomes, textOf, type InProcessGuard } from './helpers.ts';

let guard: InProcessGuard | undefined;
let serve: ServeProcess | undefined;
afterEach(async () => {
  await guard?.close();
  await serve?.stop();
  guard = undefined;
  serve = undefined;
});

describe('oneway guard in front of a server over Streamable HTTP', () => {
  it('enforces the declarations, journals the calls, and recover --apply --upstream issues the compensation', async () => {
    const dir = tempDir('oneway-guard-http-up-');
    serve = await startServe([`--scenario=${FIXTURE}`, `--out=${join(dir, 'serve')}`]);
    const journal = join(dir, 'journal.jsonl');
    guard = await guardInProcess({ tools: fixtureScenario(), toolsFile: FIXTURE, target: { url: serve.url }, journal });
    const { client } = guard;

    const early = await client.callTool({ name: 'send_email', arguments: { email: 'bob@acme.example', body: 'hi' } });
    expect(textOf(early)).toContain('missing preconditions: recipient_verified(email=bob@acme.example)');
    const note = await client.callTool({ name: 'add_note', arguments: { customer: 'acme', text: 'called' } });
    expect(note.isError).toBeFalsy();
    const id = (note.structuredContent as { id: string }).id;
    await guard.close();
    guard = undefined;

    expect(outcomes(journal).map((c) => [c.tool, c.status])).toEqual([
      ['send_email', 'blocked'],
      ['add_note', 'ok'],
    ]);
    expect(outcomes(journal)[1]?.compensation).toMatchObject({ operation: 'delete_note', args: { note_id: id } });

    const applied = await runCli(recover, [journal, '--apply', `--tools=${FIXTURE}`, `--upstream=${serve.url}`]);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(`✓ step 2 add_note: compensated delete_note({"note_id":"${id}"})`);
    expect(outcomes(journal).at(-1)).toMatchObject({ tool: 'delete_note', status: 'ok', session: 'recover' });
  });
});
