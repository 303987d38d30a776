/**
 * The data the HTML report embeds for its drill-down: every run's scores and
 * findings (from results.json) and, from its record, the calls by batch, the
 * end of the run and the recovery checklist. Read, never recomputed: outcomes
 * come from `safe_completed` / `completed` / `error`, marks from `findings`, and
 * the names of scores and marks from the score registry.
 */
import { effectReportText } from '../../../core/effects/index.ts';
import type { CallEvent, RunEndEvent, RunStartEvent } from '../../../core/record.ts';
import { buildChecklist, needsApproval } from '../../recover/checklist.ts';
import type { ParsedRecord, RecordRead } from '../../../engine/record/reader.ts';
import type { Results, RunResult } from '../../../engine/results/types.ts';
import type { ScoreFinding } from '../../../engine/scoring/findings.ts';
import { findingScores, scoreOf, scores, type ScoreDef, type ScoreValue } from '../../../engine/scoring/registry.ts';
import { commandPrefix, typedPath, type Where } from '../../../util/command-line.ts';

/** Above this many runs, only runs with findings (or an error) keep their timelines. */
const MAX_FULL_TIMELINES = 2000;
/** A value whose JSON is longer than this is cut, with its length, in the page (the record has it whole). */
const MAX_VALUE_CHARS = 2000;

export type Outcome = 'safe' | 'unsafe' | 'failed' | 'error';

/** How each outcome reads: colour is never the only cue. */
export const OUTCOMES: Record<Outcome, { label: string; glyph: string; text: string }> = {
  safe: { label: 'safe', glyph: '✓', text: 'completed safely' },
  unsafe: { label: 'unsafe', glyph: '!', text: 'completed, but not safely' },
  failed: { label: 'failed', glyph: '✗', text: 'did not complete' },
  error: { label: 'error', glyph: '⚡', text: 'ended with an error' },
};

/**
 * A run's outcome, from its scores: `error` when the run ended with an error
 * (the summary's `errors` count), else safe, completed-unsafe or failed.
 *
 * @example
 * outcomeOf({ error: null, safe_completed: false, completed: true }) // 'unsafe'
 */
export function outcomeOf(r: Pick<RunResult, 'error' | 'safe_completed' | 'completed'>): Outcome {
  if (r.error !== null) return 'error';
  return r.safe_completed ? 'safe' : r.completed ? 'unsafe' : 'failed';
}

/** A value cut for the page: the first characters of its JSON and its full length. */
export interface Clipped {
  clipped: true;
  preview: string;
  chars: number;
}

export interface CallView extends Pick<
  CallEvent,
  | 'step'
  | 'turn'
  | 'batch'
  | 'pos'
  | 'batch_size'
  | 't_ms'
  | 'latency_ms'
  | 'tool'
  | 'class'
  | 'read_only'
  | 'kind'
  | 'preconditions'
  | 'establishes'
  | 'status'
  | 'http_status'
  | 'applied'
  | 'ambiguous'
  | 'error'
  | 'approved'
  | 'reconciled'
  | 'reply_lost'
  | 'blocked_reason'
> {
  args: unknown;
  result: unknown;
  /** Each effect in words (by its kind's module), or its JSON cut short when that is too long. */
  effects: (string | Clipped)[];
  /** `needs_approval`: a compensable effect's compensation always does (a new action); a reversible one's when the record says so. */
  compensation: { operation: string; args: unknown; needs_approval: boolean; scheduled?: boolean } | null;
}

export interface RecoveryView {
  step: number;
  tool: string;
  class: CallEvent['class'];
  action: string;
  happened: string[];
  uncertain: boolean;
  uncertainty?: string;
  compensation: { operation: string; args: unknown; needs_approval: boolean; approver?: string } | null;
  compensated_at?: number;
  compensates?: number;
  repeats?: number;
  response?: { label: string; notify: string; contain: string; disclose: string };
}

export interface TimelineView {
  guard: boolean;
  deployment: unknown;
  max_steps: number | null;
  calls: CallView[];
  /** The planner's stated reason when it finished. */
  finish_reason: string | null;
  escapes: { t_ms: number; method: string; url: string; reason: string }[];
  end: Pick<RunEndEvent, 'end_reason' | 'error' | 'completed' | 'goal' | 'forbidden_held'> | null;
  /** The incident checklist (`npm run recover`), newest first. */
  recovery: RecoveryView[];
}

export interface RunView {
  scenario: string;
  planner: string;
  trial: number;
  seed: number;
  outcome: Outcome;
  end_reason: string;
  error: string | null;
  /** Every registry score of the run, by name (`ReportData.scores` says how each reads). */
  scores: Record<string, ScoreValue>;
  findings: ScoreFinding[];
  /** The record's path, relative to the results directory. */
  record: string;
  timeline: TimelineView | null;
  /** Why the timeline is missing or partial. */
  notes: string[];
}

export interface ReportData {
  scenarios: { id: string; title: string; file: string }[];
  planners: string[];
  runs: RunView[];
  /** 'findings' when the report was too large to embed every timeline. */
  timelines: 'all' | 'findings';
  omitted_timelines: number;
  outcomes: typeof OUTCOMES;
  /** The registry's scores, in order: how the drill-down names each. */
  scores: ScoreView[];
  /** The marks a call card and the timeline legend show: one per registry finding kind, then `blocked`. */
  marks: Record<string, MarkView>;
  /**
   * The recovery checklist's command as the user types it where the report was written
   * (`npx oneway recover`, or `npm run recover --` inside the oneway repository), and the
   * results directory as they would type it (null when not known: the page says `<out>`).
   */
  recover: { command: string; dir: string | null };
}

/** A score as the drill-down names it. */
interface ScoreView {
  name: string;
  label: string;
  unit: ScoreDef['unit'];
}

/** A mark on a call: its glyph, its name, and what it means on a call card. */
export interface MarkView {
  glyph: string;
  text: string;
  detail: string;
}

/** The marks of the drill-down, from the registry's findings; `blocked` is the guard's, not a score's. */
function marksView(): Record<string, MarkView> {
  return {
    ...Object.fromEntries(
      findingScores().map((s) => [
        s.finding.kind,
        { glyph: s.finding.glyph, text: s.finding.text, detail: s.finding.detail },
      ]),
    ),
    blocked: { glyph: '⊘', text: 'blocked', detail: 'blocked by the guard' },
  };
}

export interface DataOptions {
  /** The record of a run, or why it cannot be read. */
  loadRecord?: (run: RunResult) => RecordRead;
  maxFullTimelines?: number;
  maxValueChars?: number;
  /** The results directory, for the recovery command (`<out>` without it). */
  outDir?: string;
  /** Where oneway runs, which decides how the recovery command is typed (default: this process). */
  where?: Where;
}

/**
 * Cuts a value whose JSON is longer than `max` characters.
 *
 * @example
 * clip({ a: 'x'.repeat(10) }, 8) // { clipped: true, preview: '{"a":"xx', chars: 18 }
 */
export function clip(value: unknown, max = MAX_VALUE_CHARS): unknown {
  const text = JSON.stringify(value);
  if (text === undefined || text.length <= max) return value;
  const out: Clipped = { clipped: true, preview: text.slice(0, max), chars: text.length };
  return out;
}

/** The scenarios and planners of the grid: the configured ones, then any a run names that they lack. */
export function gridAxes(results: Results): { scenarios: Results['scenarios']; planners: string[] } {
  const scenarios = [...results.scenarios];
  for (const r of results.runs) {
    if (!scenarios.some((s) => s.id === r.scenario))
      scenarios.push({ id: r.scenario, file: '', title: '', tags: [], tool_lines: {} });
  }
  const planners = [...results.config.planners];
  for (const r of results.runs) if (!planners.includes(r.planner)) planners.push(r.planner);
  return { scenarios, planners };
}

/**
 * Everything the drill-down shows, one entry per run, in results order.
 *
 * @example
 * const data = buildReportData(results, { loadRecord: (r) => readRecord(join(outDir, r.record)) });
 */
export function buildReportData(results: Results, options: DataOptions = {}): ReportData {
  const max = options.maxFullTimelines ?? MAX_FULL_TIMELINES;
  const maxChars = options.maxValueChars ?? MAX_VALUE_CHARS;
  const onlyFindings = results.runs.length > max;
  let omitted = 0;
  const runs = results.runs.map((r): RunView => {
    const notes: string[] = [];
    let timeline: TimelineView | null = null;
    const wanted = !onlyFindings || r.findings.length > 0 || r.error !== null;
    if (!wanted) {
      omitted++;
      notes.push(
        `This report holds ${results.runs.length} runs, more than ${max}: only runs with findings or errors embed their timelines. The record is ${r.record}.`,
      );
    } else if (!options.loadRecord) {
      notes.push(`The run record was not read for this report; it is ${r.record}.`);
    } else {
      const read = options.loadRecord(r);
      if (!read.ok) {
        notes.push(...read.issues.map((i) => `Record ${r.record}: ${i.message}${i.hint ? ` (${i.hint})` : ''}.`));
      } else {
        for (const w of read.value.warnings)
          notes.push(`Record ${r.record}${w.line > 0 ? ` line ${w.line}` : ''}: ${w.message}.`);
        timeline = timelineOf(read.value, maxChars);
      }
    }
    return {
      scenario: r.scenario,
      planner: r.planner,
      trial: r.trial,
      seed: r.seed,
      outcome: outcomeOf(r),
      end_reason: r.end_reason,
      error: r.error,
      scores: Object.fromEntries(scores().map((s) => [s.name, scoreOf(r, s)])),
      findings: r.findings ?? [],
      record: r.record,
      timeline,
      notes,
    };
  });
  const axes = gridAxes(results);
  return {
    scenarios: axes.scenarios.map((s) => ({ id: s.id, title: s.title, file: s.file })),
    planners: axes.planners,
    runs,
    timelines: onlyFindings ? 'findings' : 'all',
    omitted_timelines: omitted,
    outcomes: OUTCOMES,
    scores: scores().map((s) => ({ name: s.name, label: s.label, unit: s.unit })),
    marks: marksView(),
    recover: {
      command: commandPrefix('recover', options.where),
      dir: options.outDir === undefined ? null : typedPath(options.outDir, options.where?.cwd),
    },
  };
}

function timelineOf(parsed: ParsedRecord, maxChars: number): TimelineView {
  const events = parsed.events;
  const start = events.find((e): e is RunStartEvent => e.type === 'run_start');
  const end = events.find((e): e is RunEndEvent => e.type === 'run_end') ?? null;
  const finish = [...events].reverse().find((e) => e.type === 'turn' && e.decision === 'finish');
  const calls = events.filter((e): e is CallEvent => e.type === 'call').map((c) => callView(c, maxChars));
  return {
    guard: start?.guard === true,
    deployment: clip(start?.deployment ?? {}, maxChars),
    max_steps: start?.max_steps ?? null,
    calls,
    finish_reason: finish?.type === 'turn' ? (finish.reason ?? null) : null,
    escapes: events.flatMap((e) =>
      e.type === 'escape' ? [{ t_ms: e.t_ms, method: e.method, url: e.url, reason: e.reason }] : [],
    ),
    end: end
      ? {
          end_reason: end.end_reason,
          error: end.error,
          completed: end.completed,
          goal: end.goal,
          forbidden_held: end.forbidden_held,
        }
      : null,
    recovery: recoveryOf(parsed, maxChars),
  };
}

function callView(c: CallEvent, maxChars: number): CallView {
  return {
    step: c.step,
    turn: c.turn,
    batch: c.batch,
    pos: c.pos,
    batch_size: c.batch_size,
    t_ms: c.t_ms,
    latency_ms: c.latency_ms,
    tool: c.tool,
    class: c.class,
    read_only: c.read_only,
    kind: c.kind,
    args: clip(c.args, maxChars),
    preconditions: c.preconditions,
    establishes: c.establishes,
    status: c.status,
    http_status: c.http_status,
    applied: c.applied,
    ambiguous: c.ambiguous,
    result: clip(c.result, maxChars),
    error: c.error,
    ...(c.approved !== undefined ? { approved: c.approved } : {}),
    ...(c.reconciled !== undefined ? { reconciled: c.reconciled } : {}),
    ...(c.reply_lost !== undefined ? { reply_lost: c.reply_lost } : {}),
    ...(c.blocked_reason !== undefined ? { blocked_reason: c.blocked_reason } : {}),
    effects: c.effects.map((e) => {
      const v = clip(e, maxChars);
      return v === e ? effectReportText(e) : (v as Clipped);
    }),
    compensation: c.compensation
      ? {
          operation: c.compensation.operation,
          args: clip(c.compensation.args, maxChars),
          needs_approval: needsApproval(c.class, c.compensation),
          ...(c.compensation.scheduled !== undefined ? { scheduled: c.compensation.scheduled } : {}),
        }
      : null,
  };
}

/** The incident checklist of `npm run recover`, without the scenario (approvers are then generic). */
function recoveryOf(parsed: ParsedRecord, maxChars: number): RecoveryView[] {
  return buildChecklist(parsed).items.map((i) => ({
    step: i.step,
    tool: i.tool,
    class: i.class,
    action: i.action,
    happened: i.happened,
    uncertain: i.uncertain,
    ...(i.uncertainty !== undefined ? { uncertainty: i.uncertainty } : {}),
    compensation: i.compensation
      ? {
          operation: i.compensation.operation,
          args: clip(i.compensation.args, maxChars),
          needs_approval: needsApproval(i.class, i.compensation),
          ...(i.compensation.approver ? { approver: i.compensation.approver.text } : {}),
        }
      : null,
    ...(i.compensated_at !== undefined ? { compensated_at: i.compensated_at } : {}),
    ...(i.compensates !== undefined ? { compensates: i.compensates } : {}),
    ...(i.repeats !== undefined ? { repeats: i.repeats } : {}),
    ...(i.response
      ? {
          response: {
            label: i.response.label,
            notify: i.response.notify,
            contain: i.response.contain,
            disclose: i.response.disclose,
          },
        }
      : {}),
  }));
}
