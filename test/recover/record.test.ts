import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRecordText, readRecord } from '../../harness/engine/record/reader.ts';
import { tempDir } from '../helpers/cli.ts';
import { call } from '../helpers/run.ts';
import { NOTES, record } from './helpers.ts';

describe('reading a run record', () => {
  it('reads a whole record', async () => {
    const r = await record(NOTES, [call('check_note', { id: 'n1' })]);
    const p = readRecord(r.file);
    expect(p.ok && p.value.calls.length).toBe(1);
    expect(p.ok && p.value.end?.end_reason).toBe('finish');
    expect(p.ok && p.value.warnings).toEqual([]);
  });

  it('ignores a last line cut short by a crash, with a warning, and notes the missing run_end', async () => {
    const r = await record(NOTES, [
      call('check_note', { id: 'n1' }),
      call('send_share_email', { to: 'a@b.example', note_id: 'n1' }),
    ]);
    const lines = r.text.trimEnd().split('\n');
    // Crash while writing the second call: its line is half there, nothing after it.
    const callLine = lines.findIndex((l, i) => i > 2 && l.includes('"type":"call"'));
    const cut = `${lines.slice(0, callLine).join('\n')}\n${(lines[callLine] ?? '').slice(0, 60)}`;
    const p = parseRecordText(cut, 'cut.jsonl');
    expect(p.ok).toBe(true);
    if (!p.ok) return;
    expect(p.value.calls.map((c) => c.tool)).toEqual(['check_note']);
    expect(p.value.end).toBeNull();
    expect(p.value.warnings.map((w) => [w.line, w.message])).toEqual([
      [callLine + 1, 'the last line is cut short (the run stopped while writing it); it was ignored'],
      [0, 'the record has no run_end: the run was interrupted'],
    ]);
  });

  it('skips a malformed line in the middle with a warning', async () => {
    const r = await record(NOTES, [call('check_note', { id: 'n1' })]);
    const lines = r.text.trimEnd().split('\n');
    const badEffect =
      '{"type":"call","tool":"x","step":9,"batch":9,"args":{},"effects":[{"kind":"update","table":"t"}],"preconditions":{"held":[],"missing":[]}}';
    lines.splice(1, 0, '{"type":"call","tool":42}', 'not json', badEffect);
    const p = parseRecordText(`${lines.join('\n')}\n`, 'x.jsonl');
    expect(p.ok && p.value.warnings.map((w) => `${w.line} ${w.message}`)).toEqual([
      '2 this call event lacks tool, step, batch, args or effects; the line was skipped',
      '3 this line is not JSON; it was skipped',
      '4 this call event has an effect that is not insert, update, delete, establish or revoke; the line was skipped',
    ]);
    expect(p.ok && p.value.calls.length).toBe(1);
    // What they held is unknown: recover lists each, never skips one in silence.
    expect(p.ok && p.value.unreadable.map((u) => u.line)).toEqual([2, 3, 4]);
  });

  it('refuses what is not a record: a missing file, a directory, empty, not JSONL, no run_start', () => {
    const dir = tempDir();
    const bad = (p: ReturnType<typeof readRecord>) => (p.ok ? 'ok' : p.issues.map((i) => i.message).join(' | '));
    expect(bad(readRecord(join(dir, 'nope.jsonl')))).toBe('the record does not exist');
    mkdirSync(join(dir, 'd.jsonl'));
    expect(bad(readRecord(join(dir, 'd.jsonl')))).toBe('is a directory, not a record');
    expect(bad(parseRecordText('\n\n', 'e.jsonl'))).toBe('the record is empty');
    expect(bad(parseRecordText('id: tiny\ntitle: a scenario\n', 's.yaml'))).toBe(
      'this is not a JSONL run record: the first line is not JSON',
    );
    writeFileSync(join(dir, 'turns.jsonl'), '{"type":"turn","turn":1,"decision":"finish","calls":0}\n');
    expect(bad(readRecord(join(dir, 'turns.jsonl')))).toContain('the record has no run_start event');
  });
});
