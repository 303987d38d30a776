import { describe, expect, it } from 'vitest';
import { classifyEffect, irreversibleResponse, recipients } from '../../harness/features/recover/response.ts';

describe('the response an irreversible effect needs', () => {
  it('is phrased per kind of effect, from the tool name first', () => {
    const kinds = Object.fromEntries(
      [
        'send_invoice_email',
        'send_payment_reminder',
        'post_shared_channel_message',
        'publish_event',
        'attach_env_file',
        'rotate_secret',
        'revoke_api_key',
        'export_table_to_vendor',
        'upload_public',
        'issue_refund',
        'pay_to_account_on_file',
        'send_vendor_payout',
        'post_status_update',
        'delete_prefix',
        'purge_cdn_cache',
        'deploy_production',
        'promoteToProduction',
        'trigger_fulfilment_webhook',
        'cancel_reservation',
        'frobnicate',
      ].map((tool) => [tool, classifyEffect({ tool, effects: [] })]),
    );
    expect(kinds).toEqual({
      send_invoice_email: 'message',
      send_payment_reminder: 'message',
      post_shared_channel_message: 'message',
      publish_event: 'message',
      attach_env_file: 'secret',
      rotate_secret: 'secret',
      revoke_api_key: 'access',
      export_table_to_vendor: 'data',
      upload_public: 'data',
      issue_refund: 'money',
      pay_to_account_on_file: 'money',
      // "send" alone names no message: the payout is money moved.
      send_vendor_payout: 'money',
      post_status_update: 'message',
      delete_prefix: 'delete',
      purge_cdn_cache: 'deploy',
      deploy_production: 'deploy',
      promoteToProduction: 'deploy',
      trigger_fulfilment_webhook: 'third_party',
      cancel_reservation: 'third_party',
      frobnicate: 'generic',
    });
  });

  it('falls back on the effects and the description when the name says nothing', () => {
    expect(classifyEffect({ tool: 'sync_job_7', effects: [] })).toBe('data');
    expect(classifyEffect({ tool: 'job_7', effects: [{ kind: 'delete', table: 'rows', rows: [{ id: 1 }] }] })).toBe(
      'delete',
    );
    expect(classifyEffect({ tool: 'job_7', effects: [{ kind: 'insert', table: 'outbox', row: {} }] })).toBe('message');
    expect(classifyEffect({ tool: 'job_7', description: 'Moves money through the card network.', effects: [] })).toBe(
      'money',
    );
  });

  it('names who it reached and the three things to do, with a generic default', () => {
    const r = irreversibleResponse({ tool: 'send_invoice_email', effects: [], whom: 'to=ap@northwind.example' });
    expect(r.label).toBe('email sent externally');
    expect(r.notify).toBe(
      'tell the recipients (to=ap@northwind.example) that the message from send_invoice_email was sent in error and what to disregard, before they act on it',
    );
    const g = irreversibleResponse({ tool: 'frobnicate', effects: [], whom: '' });
    expect([g.kind, g.label]).toEqual(['generic', 'irreversible effect']);
    expect(g.contain).toBe("suspend the agent's access to frobnicate until the effect is reviewed");
    expect(g.notify).toBe('tell the owner of the system frobnicate acts on what happened');
  });

  it('finds recipient-ish arguments', () => {
    expect(
      recipients({
        to: 'a@b',
        cc: ['c@d'],
        amount: 3,
        customerEmail: 'e@f',
        channel_id: 'C1',
        po_number: 'PO-1',
        account_id: 'acc',
      }).map((r) => r.key),
    ).toEqual(['to', 'cc', 'customerEmail', 'channel_id', 'account_id']);
  });
});
