/**
 * `npm run serve` under a restart fault: the session is cut right after the step took effect (its
 * pending call answered with an error that says so) and the next session the client opens
 * continues the same run: one run, one trial, the world as the cut session left it.
 */
import { describe, expect, it } from 'vitest';
import { connectSession, EMAIL, fixtureScenario, sessionRuns, textOf } from './helpers.ts';

describe('serve: a restart fault cuts the session, and the next session continues the run', () => {
  it('answers the cut call with an error saying so, and records one run with the restart', async () => {
    const runs = sessionRuns({ ...fixtureScenario(), restarts: [2] });

    const a = await connectSession(runs);
    expect(textOf(await a.callTool({ name: 'verify_recipient', arguments: { email: EMAIL } }))).toContain('verified');
    // Step 2 takes effect, then the restart: the client never gets its reply.
    const cut = await a.callTool({ name: 'send_email', arguments: { email: EMAIL } });
    expect(cut).toMatchObject({ isError: true, _meta: { 'oneway/restart': true } });
    expect(textOf(cut)).toContain('open a new session: it continues the same run');
    // The cut session takes nothing more.
    expect((await a.callTool({ name: 'verify_recipient', arguments: { email: EMAIL } })).isError).toBe(true);

    // A new session (a restarted agent, knowing nothing) continues the same run, whose world kept the email.
    const b = await connectSession(runs);
    await b.callTool({ name: 'finish', arguments: { reason: 'restarted and done' } });
    await runs.settle();
    const results = runs.results();
    expect(results.runs).toHaveLength(1);
    expect(results.runs[0]).toMatchObject({ trial: 1, restarts: 1, steps: 2, completed: true, end_reason: 'finish' });
  });
});
