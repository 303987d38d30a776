/**
 * Reading a run record for recovery. Records are written as the run goes, so a
 * crash can leave one without its `run_end`, or with a half-written last line:
 * those are warnings and the rest is used. What cannot be used (no file, not
 * JSONL, no `run_start`) is an error value, never an exception.
 */
import { readFileSync, statSync } from 'node:fs';
import { AppliedEffect, EFFECT_KINDS, orList } from '../../core/effects/index.ts';
import type { Problem, Result } from '../../core/errors.ts';
import {
  RECORD_SCHEMA_VERSION,
  type CallEvent,
  type IntentEvent,
  type RecordEvent,
  type RunEndEvent,
  type RunStartEvent,
  type SettleEvent,
} from '../../core/record.ts';

/**
 * Something wrong with a record: a `Problem` (harness/core/errors.ts) at a JSONL line (0 when it
 * concerns the whole file), without a column or field path (a line is one event) or a code.
 */
export interface RecordIssue extends Pick<Problem, 'file' | 'line' | 'message' | 'hint'> {
  severity: 'error' | 'warning';
}

export interface ParsedRecord {
  file: string;
  start: RunStartEvent;
  /**
   * Call events in record order. In a guard's journal, an intent with no outcome (the guard was
   * killed mid-call) is here too, after them, as the ambiguous failure it is (`lostIntentCall`).
   */
  calls: CallEvent[];
  /** Null when the run did not finish writing its record. */
  end: RunEndEvent | null;
  events: RecordEvent[];
  warnings: RecordIssue[];
  /**
   * The lines that could not be read (cut short, not JSON, not an event), with why: what they held
   * is unknown, so recover lists them (a cut intent may be a call that reached the server).
   */
  unreadable: UnreadableLine[];
}

/** A line of a record that could not be read: its number (from 1) and why. */
export interface UnreadableLine {
  line: number;
  reason: string;
}

export type RecordRead = Result<ParsedRecord, { issues: RecordIssue[] }>;

/**
 * Parses JSONL record text. Blank lines are skipped; a last line cut short is ignored with a
 * warning; a malformed line elsewhere is skipped with a warning (best effort); a file with no
 * readable `run_start` is an error.
 *
 * @example
 * const r = parseRecordText(readFileSync('reports/latest/runs/x/eager-t1.jsonl', 'utf8'), 'eager-t1.jsonl');
 * if (r.ok) console.log(r.value.calls.length);
 */
export function parseRecordText(text: string, file: string): RecordRead {
  const warnings: RecordIssue[] = [];
  const issue = (severity: RecordIssue['severity'], line: number, message: string, hint?: string): RecordIssue => ({
    severity,
    file,
    line,
    message,
    ...(hint ? { hint } : {}),
  });
  if (text.trim() === '') {
    return {
      ok: false,
      issues: [
        issue(
          'error',
          0,
          'the record is empty',
          'a run record is the JSONL file a run writes under <out>/runs/<scenario>/',
        ),
      ],
    };
  }
  const lines = text.split('\n');
  const lastContent = findLastContentLine(lines);
  const events: RecordEvent[] = [];
  const unreadable: UnreadableLine[] = [];
  let parsedAny = false;
  let badLines = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] ?? '').trim();
    if (raw === '') continue;
    const lineNo = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      badLines++;
      // Only the last line can be half-written by a crash; the file then ends without a newline.
      if (i === lastContent && !text.endsWith('\n')) {
        unreadable.push({ line: lineNo, reason: CUT });
        warnings.push(
          issue(
            'warning',
            lineNo,
            'the last line is cut short (the run stopped while writing it); it was ignored',
            'the checklist covers the events before it',
          ),
        );
      } else if (!parsedAny && i === firstContentLine(lines)) {
        return {
          ok: false,
          issues: [
            issue(
              'error',
              lineNo,
              'this is not a JSONL run record: the first line is not JSON',
              'give a file from <out>/runs/<scenario>/<planner>-t<trial>.jsonl',
            ),
          ],
        };
      } else {
        unreadable.push({ line: lineNo, reason: cutOrNot(raw) });
        warnings.push(
          issue(
            'warning',
            lineNo,
            cutOrNot(raw) === CUT
              ? 'this line is cut short (a crash, or a full disk); it was skipped'
              : 'this line is not JSON; it was skipped',
          ),
        );
      }
      continue;
    }
    parsedAny = true;
    const shape = eventShapeProblem(value);
    if (shape) {
      unreadable.push({ line: lineNo, reason: shape });
      warnings.push(issue('warning', lineNo, `${shape}; the line was skipped`));
      continue;
    }
    events.push(value as RecordEvent);
  }
  if (badLines > 0 && events.length === 0) {
    return {
      ok: false,
      issues: [issue('error', 0, 'no line of the file is a record event', 'give a JSONL run record')],
    };
  }
  const startIndex = events.findIndex((e) => e.type === 'run_start');
  if (startIndex < 0) {
    return {
      ok: false,
      issues: [
        ...warnings,
        issue(
          'error',
          0,
          'the record has no run_start event, so the scenario, seed and initial world are unknown',
          'give the whole record, as the run wrote it',
        ),
      ],
    };
  }
  const start = events[startIndex] as RunStartEvent;
  if (start.schema_version > RECORD_SCHEMA_VERSION) {
    warnings.push(
      issue(
        'warning',
        1,
        `the record has schema_version ${start.schema_version}; this oneway reads version ${RECORD_SCHEMA_VERSION}`,
        'some fields may be missed; update oneway',
      ),
    );
  }
  const calls = events.filter((e): e is CallEvent => e.type === 'call');
  const answered = new Set(calls.map((c) => c.step));
  for (const e of events) if (e.type === 'intent' && !answered.has(e.step)) calls.push(lostIntentCall(e));
  const end = (events.find((e) => e.type === 'run_end') as RunEndEvent | undefined) ?? null;
  // A guard's journal is open-ended: it has no run_end while nothing went wrong.
  if (!end && !start.journal) {
    warnings.push(
      issue(
        'warning',
        0,
        'the record has no run_end: the run was interrupted',
        'the checklist covers the calls recorded before it stopped',
      ),
    );
  }
  return { ok: true, value: { file, start, calls, end, events, warnings, unreadable } };
}

/**
 * Reads and parses a record file (see `parseRecordText`).
 *
 * @example
 * const r = readRecord('/tmp/ow/runs/invoice-and-notify/eager-t1.jsonl');
 */
export function readRecord(path: string): RecordRead {
  const fail = (message: string, hint?: string): RecordRead => ({
    ok: false,
    issues: [{ severity: 'error', file: path, line: 0, message, ...(hint ? { hint } : {}) }],
  });
  try {
    if (statSync(path).isDirectory())
      return fail('is a directory, not a record', 'give one .jsonl file from <out>/runs/<scenario>/');
    return parseRecordText(readFileSync(path, 'utf8'), path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      return fail('the record does not exist', 'check the path (relative paths start at the current directory)');
    if (code === 'EACCES') return fail('the record is not readable (permission denied)');
    return fail(`the record cannot be read: ${(e as Error).message}`);
  }
}

/**
 * The sessions of a record, each as a record of its own: a guard's journal holds the calls of every
 * MCP session it served (each event names its `session`); a run record (or a journal from before
 * sessions were named) is one session, named by its run id. Each keeps the record's run_start.
 *
 * @example
 * for (const s of sessionsOf(journal)) console.log(s.session, s.record.calls.length);
 */
export function sessionsOf(record: ParsedRecord): { session: string; record: ParsedRecord }[] {
  const fallback = record.start.run_id.slice(0, 8);
  const idOf = (e: RecordEvent): string | undefined =>
    e.type === 'call' || e.type === 'intent' || e.type === 'rejected' ? (e.session ?? fallback) : undefined;
  const seen = new Set<string>();
  for (const e of [...record.events, ...record.calls]) {
    const id = idOf(e);
    if (id !== undefined) seen.add(id);
  }
  const ids = [...seen];
  if (ids.length <= 1) return [{ session: ids[0] ?? fallback, record }];
  return ids.map((id) => ({
    session: id,
    record: {
      ...record,
      calls: record.calls.filter((c) => idOf(c) === id),
      events: record.events.filter((e) => idOf(e) === undefined || idOf(e) === id),
    },
  }));
}

/** Why a lost intent's outcome is unknown: what its stand-in call event says. */
export const LOST_INTENT_ERROR =
  'the guard stopped before the outcome was journaled (killed or crashed mid-call): the call may have taken effect';

/**
 * The call event an intent without an outcome stands for: an ambiguous failure whose reply was lost
 * (nothing journaled of it applied; it may have). Retries of it are unreconciled until a reconciling
 * call reports on it, and recover lists it as uncertain.
 *
 * @example
 * lostIntentCall(intent) // { ...intent, type: 'call', status: 'fault', ambiguous: true, reply_lost: true, ... }
 */
export function lostIntentCall(i: IntentEvent): CallEvent {
  const { type: _type, ...head } = i;
  return {
    type: 'call',
    ...head,
    latency_ms: 0,
    status: 'fault',
    http_status: null,
    applied: false,
    ambiguous: true,
    result: null,
    error: LOST_INTENT_ERROR,
    reply_lost: true,
    effect_id: null,
    effects: [],
    compensation: null,
  };
}

/**
 * A person's settle as the walk of ambiguous failures reads it (retries.ts): a reconciling reply, at
 * its own place in the journal, that reported on the settled call. So the guard, the checklist and
 * scoring settle it by the one rule that settles a reconciler's answer.
 *
 * @example
 * settleReport(e) // { step: 9, batch: 9, status: 'ok', reconciled: { step: 4, applied: false, ... }, ... }
 */
export function settleReport(
  e: SettleEvent,
): Pick<
  CallEvent,
  'step' | 'batch' | 'tool' | 'args' | 'class' | 'status' | 'ambiguous' | 'reconciled' | 'reply_lost'
> {
  const call = { tool: e.tool, step: e.settles, applied: e.applied };
  return {
    step: e.step,
    batch: e.batch,
    tool: `settled by ${e.by}`,
    args: {},
    class: 'reversible',
    status: 'ok',
    ambiguous: false,
    reconciled: { ...call, calls: [call] },
  };
}

/** `file:line: severity: message` with the hint on its own line. */
export function formatRecordIssue(i: RecordIssue): string {
  const where = i.line > 0 ? `${i.file}:${i.line}` : i.file;
  return `${where}: ${i.severity}: ${i.message}${i.hint ? `\n    hint: ${i.hint}` : ''}`;
}

const CUT = 'cut short: the writer stopped while writing it (a crash, or a full disk)';

/** Why a line that is not JSON is not: cut short (it opens an object it never closes), or else not JSON at all. */
function cutOrNot(raw: string): string {
  return raw.startsWith('{') && !raw.endsWith('}') ? CUT : 'not JSON';
}

function findLastContentLine(lines: string[]): number {
  for (let i = lines.length - 1; i >= 0; i--) if ((lines[i] ?? '').trim() !== '') return i;
  return -1;
}

function firstContentLine(lines: string[]): number {
  return lines.findIndex((l) => l.trim() !== '');
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Enough of each event's shape that recovery can rely on it; undefined when fine. */
function eventShapeProblem(v: unknown): string | undefined {
  if (!isObj(v) || typeof v.type !== 'string') return 'this line is not a record event (no "type")';
  switch (v.type) {
    case 'run_start':
      if (
        typeof v.scenario !== 'string' ||
        typeof v.seed !== 'number' ||
        !Array.isArray(v.tools) ||
        (!isObj(v.initial_world) && typeof v.initial_world_sha256 !== 'string')
      ) {
        return 'this run_start lacks scenario, seed, tools or initial_world';
      }
      return undefined;
    case 'call':
      if (
        typeof v.tool !== 'string' ||
        typeof v.step !== 'number' ||
        typeof v.batch !== 'number' ||
        !Array.isArray(v.effects) ||
        !isObj(v.args)
      ) {
        return 'this call event lacks tool, step, batch, args or effects';
      }
      if (!(v.effects as unknown[]).every((e) => AppliedEffect.safeParse(e).success))
        return `this call event has an effect that is not ${orList(EFFECT_KINDS)}`;
      if (
        v.compensation !== null &&
        v.compensation !== undefined &&
        (!isObj(v.compensation) || typeof v.compensation.operation !== 'string' || !isObj(v.compensation.args))
      ) {
        return 'this call event has a compensation without operation or args';
      }
      if (!isObj(v.preconditions) || !Array.isArray(v.preconditions.missing))
        return 'this call event lacks preconditions';
      return undefined;
    case 'run_end':
      // world_diff since issue 41; a record written before holds final_world.
      return isObj(v.world_diff) || isObj(v.final_world) ? undefined : 'this run_end lacks world_diff (or final_world)';
    case 'intent':
      return typeof v.tool === 'string' && typeof v.step === 'number' && isObj(v.args) && isObj(v.preconditions)
        ? undefined
        : 'this intent lacks tool, step, args or preconditions';
    case 'settle':
      return typeof v.step === 'number' &&
        typeof v.batch === 'number' &&
        typeof v.settles === 'number' &&
        typeof v.tool === 'string' &&
        typeof v.applied === 'boolean' &&
        typeof v.by === 'string' &&
        typeof v.at === 'string'
        ? undefined
        : 'this settle lacks step, batch, settles, tool, applied, by or at';
    case 'turn':
    case 'escape':
    case 'rejected': // a call that never reached the sandbox: nothing to recover
    case 'restart': // the planner restarted; the world kept everything
      return undefined;
    default:
      return `unknown event type "${v.type}"`;
  }
}
