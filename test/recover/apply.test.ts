import { describe, expect, it } from 'vitest';
import { applyRecovery } from '../../harness/features/recover/apply.ts';
import { parseRecordText } from '../../harness/engine/record/reader.ts';
import { call } from '../helpers/run.ts';
import { scenarioAt } from '../helpers/run.ts';
import { INVOICE, NOTES, record } from './helpers.ts';

const n1 = { id: 'n1', title: 'Q3 plan', owner: 'ana' };
const n3 = { id: 'n3', title: 'Stale draft', owner: 'ana' };

async function applied(file: string, decisions: Parameters<typeof record>[1], approve = false) {
  const r = await record(file, decisions);
  const out = await applyRecovery(r.record, r.scenario, { approve });
  if (!out.ok) throw new Error(out.issues.map((i) => i.message).join('; '));
  return { ...r, report: out.value };
}

describe('recover --apply', () => {
  it('restores a reversible delete: the compensation re-inserts the rows the record carries', async () => {
    const { report } = await applied(NOTES, [call('check_note', { id: 'n3' }), call('delete_note', n3)]);
    expect(report.replay).toEqual({ calls: 2, batches: 2 });
    expect(report.compensations).toEqual([
      expect.objectContaining({
        step: 2,
        tool: 'delete_note',
        disposition: 'compensated',
        operation: 'restore_note',
        args: n3,
        http_status: 200,
      }),
    ]);
    expect(report.restored).toBe(true);
    expect(report.remaining).toEqual([]);
    expect(report.after.tables.notes).toEqual(report.before.tables.notes);
    // What check_note verified is not an effect.
    expect(report.observations).toEqual(['note_checked(id=n3)']);
  });

  it('counts rows back in another order as restored, and says so', async () => {
    const { report } = await applied(NOTES, [call('delete_note', n1)]);
    expect(report.restored).toBe(true);
    expect(report.reordered).toEqual(['notes']);
  });

  it('reports what an irreversible effect leaves, attributed to its call', async () => {
    const { report } = await applied(NOTES, [
      call('delete_note', n3),
      call('send_share_email', { to: 'dana@partner.example', note_id: 'n1' }),
    ]);
    expect(report.restored).toBe(false);
    expect(report.remaining).toEqual([
      expect.objectContaining({
        where: 'row',
        table: 'outbox',
        change: 'added',
        row: { to: 'dana@partner.example', note_id: 'n1' },
        cause: 'irreversible',
        step: 2,
        tool: 'send_share_email',
      }),
      expect.objectContaining({
        where: 'fact',
        change: 'added',
        fact: 'note_shared(note=n1, to=dana@partner.example)',
        cause: 'irreversible',
        step: 2,
      }),
    ]);
    expect(report.compensations.map((c) => [c.step, c.disposition])).toEqual([
      [2, 'irreversible'],
      [1, 'compensated'],
    ]);
  });

  it('leaves compensable effects to --approve, then issues their compensation', async () => {
    const tag = [call('create_tag', { note_id: 'n1', name: 'plan' })];
    const without = await applied(NOTES, tag);
    expect(without.report.remaining.map((x) => [x.where, x.cause, x.operation])).toEqual([
      ['row', 'unapproved', 'delete_tag'],
      ['fact', 'unapproved', 'delete_tag'],
    ]);
    expect(without.report.remaining[0]?.explanation).toContain('request_approval(action=delete_tag)');
    const withApproval = await applied(NOTES, tag, true);
    expect(withApproval.report.compensations[0]).toMatchObject({
      disposition: 'compensated',
      operation: 'delete_tag',
      missing: ['human_gate_passed(action=delete_tag)'],
    });
    expect(withApproval.report.restored).toBe(true);
  });

  it('attributes what a compensation leaves behind to it: voiding an invoice does not un-issue it', async () => {
    const invoice = { customer: 'northwind-traders', amount: 18450, currency: 'EUR', po_number: 'PO-2025-0613' };
    const { report } = await applied(INVOICE, [call('create_invoice', invoice)], true);
    expect(report.compensations[0]).toMatchObject({ disposition: 'compensated', operation: 'void_invoice' });
    expect(
      report.remaining.map((x) => [
        x.where,
        x.where === 'fact' ? x.fact.split('(')[0] : x.change,
        x.cause,
        x.operation,
      ]),
    ).toEqual([
      ['row', 'added', 'not_restored', 'void_invoice'],
      ['fact', 'invoice_voided', 'not_restored', 'void_invoice'],
    ]);
    expect(report.remaining[0]).toMatchObject({ row: expect.objectContaining({ status: 'void' }) });
  });

  it('refuses a record the scenario does not reproduce', async () => {
    const r = await record(NOTES, [call('delete_note', n3)]);
    // The record says another row was deleted than the scenario deletes.
    const tampered = r.text
      .split('\n')
      .map((l) =>
        l.includes('"type":"call"')
          ? l.replace(
              '"rows":[{"id":"n3","title":"Stale draft","owner":"ana"}]',
              '"rows":[{"id":"n3","title":"Stale draft","owner":"bob"}]',
            )
          : l,
      )
      .join('\n');
    expect(tampered).not.toBe(r.text);
    const p = parseRecordText(tampered, r.file);
    if (!p.ok) throw new Error('tampered record should parse');
    const out = await applyRecovery(p.value, r.scenario, { approve: false });
    expect(out.ok).toBe(false);
    expect(!out.ok && out.issues[0]?.message).toBe(
      'the replay does not reproduce the record at step 1 (delete_note): its effects differ from the recorded ones',
    );
  });

  it('refuses a scenario with another id or another initial world', async () => {
    const r = await record(NOTES, [call('delete_note', n3)]);
    const other = await applyRecovery(r.record, scenarioAt(INVOICE), { approve: false });
    expect(!other.ok && other.issues[0]?.message).toContain('the record is a run of "notes-recovery"');
    const changed = scenarioAt(NOTES);
    changed.world.tables.notes = [];
    const world = await applyRecovery(r.record, changed, { approve: false });
    expect(!world.ok && world.issues[0]?.message).toContain('another initial world');
  });
});
