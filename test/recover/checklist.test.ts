import { describe, expect, it } from 'vitest';
import { buildChecklist } from '../../harness/features/recover/checklist.ts';
import { renderJson, renderMarkdown, renderText } from '../../harness/features/recover/render.ts';
import { makeChalk } from '../../harness/features/report/color.ts';
import { batch, call, recordOf } from '../helpers/run.ts';
import { NOTES, record } from './helpers.ts';

const n3 = { id: 'n3', title: 'Stale draft', owner: 'ana' };
const share = { to: 'dana@partner.example', note_id: 'n1' };

describe('the incident checklist', () => {
  it('lists every effect newest first, read-only calls left out', async () => {
    const r = await record(NOTES, [
      call('check_note', { id: 'n3' }),
      call('delete_note', n3),
      call('create_tag', { note_id: 'n1', name: 'plan' }),
      call('send_share_email', share),
    ]);
    const c = buildChecklist(r.record, r.scenario);
    expect(c.items.map((i) => [i.step, i.tool])).toEqual([
      [4, 'send_share_email'],
      [3, 'create_tag'],
      [2, 'delete_note'],
    ]);
    expect(c.counts).toMatchObject({ compensate: 1, compensate_with_approval: 1, respond: 1, uncertain: 0 });
  });

  it('gives reversible effects their exact compensating call', async () => {
    const r = await record(NOTES, [call('delete_note', n3)]);
    const [item] = buildChecklist(r.record, r.scenario).items;
    expect(item?.action).toBe('compensate');
    expect(item?.compensation).toMatchObject({ operation: 'restore_note', args: n3, requires_approval: false });
    expect(item?.compensation?.approver).toBeUndefined();
    expect(item?.happened).toContain('notes: deleted 1 row (id=n3)');
    expect(item?.premature).toEqual(['note_checked(id=n3)']);
  });

  it('names who must approve a compensable effect: the approval gate of the compensating tool, else a human with authority', async () => {
    const r = await record(NOTES, [call('create_tag', { note_id: 'n1', name: 'plan' })]);
    const item = buildChecklist(r.record, r.scenario).items[0];
    expect(item?.action).toBe('compensate_with_approval');
    const tagId = (r.record.calls[0]?.result as { id: string }).id;
    expect(item?.compensation).toMatchObject({
      operation: 'delete_tag',
      args: { tag_id: tagId },
      requires_approval: true,
    });
    expect(item?.compensation?.approver).toMatchObject({
      via: 'request_approval',
      action: 'delete_tag',
      scripted: 'approve',
    });
    expect(item?.compensation?.approver?.text).toBe(
      'request_approval(action=delete_tag): Ask the workspace admin to sign off an action.',
    );
    // Without the scenario file, the record alone cannot name the gate.
    expect(buildChecklist(r.record).items[0]?.compensation?.approver?.text).toBe(
      'a human with authority over delete_tag',
    );
  });

  it('says what an irreversible effect did, to whom and when, and how to respond', async () => {
    const r = await record(NOTES, [call('check_note', { id: 'n1' }), call('send_share_email', share)]);
    const item = buildChecklist(r.record, r.scenario).items[0];
    expect(item).toMatchObject({
      action: 'respond',
      step: 2,
      batch: 1,
      turn: 2,
      tool: 'send_share_email',
      uncertain: false,
      premature: [],
    });
    expect(item?.recipients).toEqual([{ key: 'to', value: 'dana@partner.example' }]);
    expect(item?.response?.kind).toBe('message');
    expect(item?.response?.label).toBe('email sent externally');
    expect(item?.response?.notify).toContain('to=dana@partner.example');
    expect(item?.happened).toEqual([
      'outbox: inserted {to: dana@partner.example, note_id: n1}',
      'fact established: note_shared(note=n1, to=dana@partner.example)',
    ]);
  });

  it('marks the effect of an ambiguous failure uncertain, and a blind retry as a possible duplicate', async () => {
    // The second call of send_share_email times out after the mail went out (504, applied).
    const r = await record(NOTES, [
      call('send_share_email', { to: 'x@partner.example', note_id: 'n2' }),
      call('send_share_email', share),
      call('send_share_email', share),
    ]);
    const c = buildChecklist(r.record, r.scenario);
    const failed = c.items.find((i) => i.step === 2);
    expect(failed).toMatchObject({
      uncertain: true,
      status: 'fault',
      http_status: 504,
      reconcile_with: ['get_share_status'],
    });
    expect(failed?.uncertainty).toContain('HTTP 504');
    expect(c.items.find((i) => i.step === 3)).toMatchObject({ uncertain: false, repeats: 2 });
    expect(c.items.find((i) => i.step === 1)).toMatchObject({ uncertain: false });
    expect(c.counts.uncertain).toBe(1);
    expect(renderText(c, undefined, makeChalk(false))).toContain(
      'UNCERTAIN: may have happened: reconcile first (check with get_share_status)',
    );
  });

  it('settles an ambiguous failure that a reconciling call looked at', async () => {
    const r = await record(NOTES, [
      call('send_share_email', { to: 'x@partner.example', note_id: 'n2' }),
      call('send_share_email', share),
      call('get_share_status', share),
    ]);
    const failed = buildChecklist(r.record, r.scenario).items.find((i) => i.step === 2);
    expect(failed?.uncertain).toBe(false);
    expect(failed?.uncertainty).toContain('get_share_status (step 3) reported applied=true');
  });

  it('does not call a repeat "may exist twice" once a reconciler answered applied=false', async () => {
    const r = await record(NOTES, [
      call('send_share_email', { to: 'x@partner.example', note_id: 'n2' }),
      call('send_share_email', share), // 504
      call('get_share_status', share),
      call('send_share_email', share),
    ]);
    // The reconciler's answer, as a status tool says the mail never went out.
    const events = r.events.map((e) =>
      e.type === 'call' && e.step === 3 && e.reconciled
        ? {
            ...e,
            reconciled: {
              ...e.reconciled,
              applied: false,
              calls: (e.reconciled.calls ?? []).map((c) => ({ ...c, applied: false })),
            },
          }
        : e,
    );
    const c = buildChecklist(recordOf(events), r.scenario);
    const repeat = c.items.find((i) => i.step === 4);
    expect(repeat?.repeats).toBeUndefined();
    expect(renderText(c, undefined, makeChalk(false))).not.toContain('may exist twice');
    expect(c.items.find((i) => i.step === 2)?.uncertainty).toContain(
      'get_share_status (step 3) reported applied=false',
    );
  });

  it('asks to reconcile an ambiguous failure whose effect did not happen', async () => {
    const r = await record(NOTES, [call('send_digest', { to: 'team@core.example' })]);
    const [item] = buildChecklist(r.record, r.scenario).items;
    expect(item).toMatchObject({ action: 'reconcile', uncertain: true, effects: [], http_status: 503 });
  });

  it('leaves alone what the run compensated itself, and the compensating call', async () => {
    const r = await record(NOTES, [call('delete_note', n3), call('restore_note', n3)]);
    const c = buildChecklist(r.record, r.scenario);
    expect(c.items.map((i) => [i.step, i.action, i.compensated_at, i.compensates])).toEqual([
      [2, 'none', undefined, 1],
      [1, 'none', 2, undefined],
    ]);
  });

  it('orders calls of one batch by step, newest first', async () => {
    const r = await record(NOTES, [batch(['delete_note', n3], ['create_tag', { note_id: 'n1', name: 'plan' }])]);
    expect(buildChecklist(r.record, r.scenario).items.map((i) => i.step)).toEqual([2, 1]);
  });

  it('renders text, markdown and JSON with the exact compensating call', async () => {
    const r = await record(NOTES, [call('delete_note', n3), call('send_share_email', share)]);
    const c = buildChecklist(r.record, r.scenario);
    const exact = 'restore_note({"id":"n3","title":"Stale draft","owner":"ana"})';
    const text = renderText(c, undefined, makeChalk(false));
    expect(text).toContain(exact);
    expect(text).toContain('respond: email sent externally, no compensation exists');
    expect(text.indexOf('send_share_email')).toBeLessThan(text.indexOf('delete_note'));
    const md = renderMarkdown(c, undefined);
    expect(md).toContain(`\`${exact}\``);
    expect(md).toContain('- [ ] notify:');
    const json = JSON.parse(renderJson(c, undefined)) as { items: { step: number; compensation: unknown }[] };
    expect(json.items.map((i) => i.step)).toEqual([2, 1]);
    expect(json.items[1]?.compensation).toMatchObject({ operation: 'restore_note', args: n3 });
  });
});
