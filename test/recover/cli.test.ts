import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/recover.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { call } from '../helpers/run.ts';
import { NOTES, record } from './helpers.ts';

const n3 = { id: 'n3', title: 'Stale draft', owner: 'ana' };
/** A console wide enough that no checklist line wraps: the tests that read whole lines. */
const WIDE = { NO_COLOR: '1', COLUMNS: '400' };
const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at .+\(.*:\d+:\d+\)/);

describe('npm run recover', () => {
  it('prints the checklist and exits 0', async () => {
    const r = await record(NOTES, [
      call('delete_note', n3),
      call('send_share_email', { to: 'dana@partner.example', note_id: 'n1' }),
    ]);
    const out = await runCli(main, [r.file], process.cwd(), WIDE);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(
      'Incident checklist: notes-recovery · planner fixed · trial 1 · seed 11 · 2 calls · ended: finish, completed',
    );
    expect(out.stdout).toContain('2 effects, newest first: 1 to compensate, 1 to respond to (no compensation)');
    expect(out.stdout).toContain('restore_note({"id":"n3","title":"Stale draft","owner":"ana"})');
    expect(out.stderr).toBe('');
  });

  it('wraps the text checklist to the terminal: COLUMNS=80 gives no line over 80 columns, the same words', async () => {
    const r = await record(NOTES, [
      call('delete_note', n3),
      call('send_share_email', { to: 'dana@partner.example', note_id: 'n1' }),
    ]);
    const wide = await runCli(main, [r.file, '--apply'], process.cwd(), WIDE);
    const narrow = await runCli(main, [r.file, '--apply'], process.cwd(), { NO_COLOR: '1', COLUMNS: '80' });
    expect(wide.stdout.split('\n').some((l) => [...l].length > 80)).toBe(true);
    expect(narrow.stdout.split('\n').filter((l) => [...l].length > 80)).toEqual([]);
    expect(narrow.stdout.replace(/\s+/g, ' ')).toBe(wide.stdout.replace(/\s+/g, ' '));
    expect(narrow.code).toBe(wide.code);
  });

  it('--apply exits 0 when the world is fully restored, 1 when something remains', async () => {
    const reversible = await record(NOTES, [call('delete_note', n3)]);
    const ok = await runCli(main, [reversible.file, '--apply']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('RESTORED: the world equals its pre-run state (3 tables, 1 fact)');
    const mixed = await record(NOTES, [
      call('delete_note', n3),
      call('send_share_email', { to: 'dana@partner.example', note_id: 'n1' }),
    ]);
    const left = await runCli(main, [mixed.file, '--apply']);
    expect(left.code).toBe(1);
    expect(left.stdout).toContain('NOT RESTORED: 2 differences from the pre-run state remain (2 irreversible)');
    expect(left.stdout).toContain('outbox + {to: dana@partner.example, note_id: n1}');
  });

  it('prints markdown and JSON', async () => {
    const r = await record(NOTES, [call('delete_note', n3)]);
    const md = await runCli(main, [r.file, '--reporter=markdown', '--apply']);
    expect(md.stdout).toMatch(/^# Incident checklist: notes-recovery/);
    expect(md.stdout).toContain('**Restored**: the world equals its pre-run state.');
    const json = await runCli(main, [r.file, '--reporter=json', '--apply']);
    const doc = JSON.parse(json.stdout) as { items: unknown[]; apply: { restored: boolean } };
    expect(doc.items).toHaveLength(1);
    expect(doc.apply.restored).toBe(true);
    expect(json.stderr).not.toContain('deprecated');
    // --format, the former name, still works, with a one-line warning.
    const former = await runCli(main, [r.file, '--format=json', '--apply']);
    expect(former.stdout).toBe(json.stdout);
    expect(former.stderr.split('\n').filter((l) => l.includes('deprecated'))).toEqual([
      'oneway: warning: --format is deprecated: write --reporter=json (the same option, as in oneway eval)',
    ]);
  });

  it('warns about a truncated record and recovers what it holds', async () => {
    const r = await record(NOTES, [
      call('delete_note', n3),
      call('send_share_email', { to: 'dana@partner.example', note_id: 'n1' }),
    ]);
    const lines = r.text.trimEnd().split('\n');
    const last = lines.findLastIndex((l) => l.includes('"type":"call"'));
    const file = join(tempDir(), 'cut.jsonl');
    writeFileSync(file, `${lines.slice(0, last).join('\n')}\n${(lines[last] ?? '').slice(0, 100)}`);
    const out = await runCli(main, [file, '--apply'], process.cwd(), WIDE);
    expect(out.code).toBe(0);
    expect(out.stderr).toContain(`${file}:${last + 1}: warning: the last line is cut short`);
    expect(out.stderr).toContain('warning: the record has no run_end');
    expect(out.stdout).toContain('1 call · interrupted (no run_end)');
    expect(out.stdout).toContain('RESTORED');
  });

  it('finds the scenario with --scenario when the recorded path is gone; --apply needs it', async () => {
    const dir = tempDir();
    const moved = join(dir, 'notes.yaml');
    copyFileSync(NOTES, moved);
    const r = await record(moved, [call('delete_note', n3)]);
    const file = join(dir, 'run.jsonl');
    writeFileSync(file, r.text.replace(JSON.stringify(moved), JSON.stringify('gone/notes.yaml')));
    const plain = await runCli(main, [file]);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toContain('without the scenario file, approvers are generic');
    const apply = await runCli(main, [file, '--apply']);
    expect(apply.code).toBe(2);
    expect(apply.stderr).toContain('--apply needs the scenario the run used');
    const given = await runCli(main, [file, '--apply', `--scenario=${moved}`]);
    expect(given.code).toBe(0);
  });

  it('refuses --settle and --tools on the record of an evaluation, with a hint', async () => {
    const r = await record(NOTES, [call('send_share_email', { to: 'dana@partner.example', note_id: 'n1' })]);
    const settle = await runCli(main, [r.file, '--settle=1=applied']);
    expect(settle.code).toBe(2);
    expect(settle.stderr).toContain("--settle records a person's answer in a guard's journal");
    const tools = await runCli(main, [r.file, '--tools=tools.yaml']);
    expect(tools.code).toBe(2);
    expect(tools.stderr).toContain('--tools is for a journal of oneway guard');
  });

  it('exits 2 on bad input, with a hint and no stack trace', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'scenario.yaml'), 'id: x\n');
    const cases: [string[], string][] = [
      [[join(dir, 'missing.jsonl')], 'the record does not exist'],
      [[join(dir, 'scenario.yaml')], 'this is not a JSONL run record'],
      [[], 'give the run record to recover from'],
      [['a.jsonl', 'b.jsonl'], 'b.jsonl: error: the record does not exist'],
      [['a.jsonl', '--approve'], '--approve only makes sense with --apply'],
      [['a.jsonl', '--reporter=xml'], '--reporter must be one of text, markdown, json'],
      [['a.jsonl', '--reporter=json', '--format=markdown'], '--reporter=json and --format=markdown disagree'],
      [['a.jsonl', '--aply'], 'unknown option --aply'],
    ];
    for (const [argv, message] of cases) {
      const out = await runCli(main, argv, dir);
      expect(out.code, argv.join(' ')).toBe(2);
      expect(out.stderr).toContain(message);
      noStack(out.stderr);
    }
    expect((await runCli(main, ['--aply'], dir)).stderr).toContain('did you mean --apply?');
  });
});
