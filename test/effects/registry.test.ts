import { describe, expect, it } from 'vitest';
import { deleteEffect } from '../../harness/core/effects/delete.ts';
import { establish } from '../../harness/core/effects/establish.ts';
import {
  AppliedEffect,
  DeclaredEffect,
  EFFECT_KINDS,
  EFFECTS,
  effectReportText,
  type EffectKind,
  type EffectModule,
} from '../../harness/core/effects/index.ts';
import { insert } from '../../harness/core/effects/insert.ts';
import { update } from '../../harness/core/effects/update.ts';
import { problemsOf, tinyWith } from '../loader/helpers.ts';

describe('effect registry', () => {
  it('has one module per kind, under its own name', () => {
    expect(Object.keys(EFFECTS).sort()).toEqual([...EFFECT_KINDS].sort());
    for (const k of EFFECT_KINDS) expect(EFFECTS[k].kind).toBe(k);
  });

  it('does not compile with a kind missing or a module under another name', () => {
    // @ts-expect-error revoke has no module
    const missing: { readonly [K in EffectKind]: EffectModule<K> } = {
      insert,
      update,
      delete: deleteEffect,
      establish,
    };
    // @ts-expect-error the insert module is not a delete
    const misnamed: { readonly [K in EffectKind]: EffectModule<K> } = { ...EFFECTS, delete: insert };
    expect([missing, misnamed]).toHaveLength(2);
  });

  it('records an applied effect only in the shape of its kind', () => {
    expect(AppliedEffect.safeParse({ kind: 'establish', fact: 'a(x=1)', was_new: true }).success).toBe(true);
    expect(AppliedEffect.safeParse({ kind: 'establish', fact: 'a(x=1)' }).success).toBe(false);
    expect(AppliedEffect.safeParse({ kind: 'update', table: 't', before: [{}], after: 'x' }).success).toBe(false);
    expect(AppliedEffect.safeParse({ kind: 'upsert', table: 't', row: {} }).success).toBe(false);
  });

  it('declares an effect as one optional key per kind, in the contract order, an optional if: and for_each, nothing else', () => {
    expect(Object.keys(DeclaredEffect.shape)).toEqual([...EFFECT_KINDS, 'if', 'for_each']);
    expect(DeclaredEffect.safeParse({ establish: 'a(x=1)' }).success).toBe(true);
    expect(DeclaredEffect.safeParse({ establish: 'a(x=1)', if: '{{args.x}} == 1' }).success).toBe(true);
    expect(DeclaredEffect.safeParse({ upsert: { table: 't' } }).success).toBe(false);
    expect(DeclaredEffect.description).toBe(
      'Exactly one of insert, update, delete, establish, revoke or for_each, and optionally if: CONDITION.',
    );
  });

  it('phrases the loader problems from the kinds', () => {
    const empty = problemsOf(tinyWith((d) => d.tools[1].effects.push({})));
    expect(empty.map((p) => p.hint)).toEqual([
      'e.g. insert: { table: t, row: {...} }, update: { table, where, set }, delete: { table, where }, establish: FACT or revoke: FACT',
    ]);
    const readOnly = problemsOf(
      tinyWith((d) => {
        d.tools[0].read_only = true;
        d.tools[0].effects.push({ update: { table: 'outbox', where: {}, set: {} } });
      }),
    );
    expect(readOnly.map((p) => p.message)).toContain('read_only tool "verify_recipient" has an update effect');
  });

  it('words each kind exactly for the HTML report, changed or not', () => {
    expect(effectReportText({ kind: 'insert', table: 'outbox', row: { to: 'bob@acme.example', n: 2 } })).toBe(
      'insert into outbox: to="bob@acme.example", n=2',
    );
    expect(
      effectReportText({
        kind: 'update',
        table: 'bills',
        before: [{ id: 'B-1', status: 'approved', amount: 10 }],
        after: [{ id: 'B-1', status: 'paid', amount: 10, paid_at: '2025-06-23' }],
      }),
    ).toBe('update bills: id="B-1" status: "approved" → "paid", paid_at: — → "2025-06-23"');
    expect(effectReportText({ kind: 'update', table: 'bills', before: [{ id: 'B-1' }], after: [{ id: 'B-1' }] })).toBe(
      'update bills: id="B-1" (unchanged)',
    );
    expect(effectReportText({ kind: 'update', table: 'bills', before: [], after: [] })).toBe(
      'update bills: no row matched',
    );
    expect(effectReportText({ kind: 'delete', table: 'notes', rows: [{ id: 'n1' }, { id: 'n2' }] })).toBe(
      'delete from notes: id="n1"; id="n2"',
    );
    expect(effectReportText({ kind: 'delete', table: 'notes', rows: [] })).toBe('delete from notes: no row matched');
    expect(effectReportText({ kind: 'establish', fact: 'paid(bill=B-1)', was_new: false })).toBe(
      'establish paid(bill=B-1) (already held)',
    );
    expect(effectReportText({ kind: 'revoke', facts: [] })).toBe('revoke (nothing held)');
  });
});
