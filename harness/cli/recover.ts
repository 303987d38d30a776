/**
 * `npm run recover -- RECORD.jsonl`: the incident checklist of a run, and with
 * `--apply` its reversible part applied in a sandbox, with proof.
 * Exit status: 0 checklist printed (with --apply: the world is fully restored);
 * 1 with --apply, something remains; 2 usage or input error.
 */
import { existsSync, statSync, type Stats } from 'node:fs';
import { userInfo } from 'node:os';
import { relative, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { formatProblem, UsageError, type Result } from '../core/errors.ts';
import type { Scenario } from '../core/scenario.ts';
import type { Policy } from '../engine/guard/policy.ts';
import { loadScenarioFile, type LoadedScenario } from '../engine/loader/load.ts';
import { Journal } from '../features/guard-proxy/journal.ts';
import { GuardProxy } from '../features/guard-proxy/proxy.ts';
import { loadGuardTools } from '../features/guard-proxy/tools-file.ts';
import { Upstream, type UpstreamTarget } from '../features/guard-proxy/upstream.ts';
import { applyRecovery, type ApplyReport } from '../features/recover/apply.ts';
import { buildChecklist, type Checklist } from '../features/recover/checklist.ts';
import { applyToServer, serverReportLines, type ServerReport } from '../features/recover/live.ts';
import { journalFiles, readJournalSessions, sessionJournalDir } from '../engine/record/journals.ts';
import { formatRecordIssue, readRecord, type ParsedRecord, type RecordRead } from '../engine/record/reader.ts';
import { FORMATS, renderJson, renderMarkdown, renderText, type Format } from '../features/recover/render.ts';
import { outputWidth } from '../util/width.ts';
import { terminalSafeDeep, terminalText } from '../util/terminal-text.ts';
import {
  resolveScenarioSpecs,
  parseCli,
  REPO_ROOT,
  type Io,
  commandFailed,
  runIfEntry,
  processIo,
  paints,
  reporterOption,
} from './common.ts';
import { printHelp } from './help.ts';

const HELP = `oneway recover: the incident checklist of a run, from its record.

Usage: oneway recover RECORD.jsonl|JOURNAL|DIR... [options]
       oneway recover JOURNAL.jsonl --apply --tools=FILE [--approve] -- COMMAND [ARGS...]
       oneway recover JOURNAL.jsonl --apply --tools=FILE [--approve] --upstream=URL
       oneway recover JOURNAL.jsonl --settle=STEP=applied|not-applied [--by=NAME]

  RECORD.jsonl               a run record (<out>/runs/<scenario>/<planner>-t<trial>.jsonl), or the
                             journal oneway guard wrote; several may be given
  JOURNAL                    a guard's journal, with the session journals guards sharing its path
                             wrote beside it (JOURNAL.d/*.jsonl): each listed in turn
  DIR                        every *.jsonl journal in the directory
  --reporter=text|markdown|json
                             how to print the checklist (default: text; --format, its former name,
                             still works with a warning)
  --scenario=FILE|ID         the scenario the run used (default: the record's scenario_file, relative to
                             the current directory, then to the oneway checkout, then the bundled id);
                             it names approvers and describes tools, and --apply needs it
  --apply                    replay the run in a fresh sandbox (same scenario and seed), check the replay
                             reproduces the record, issue the reversible compensations newest first, and
                             prove the world is back to its pre-run state, or show what remains and why
  --approve                  with --apply: also issue the compensations that need approval (compensable
                             effects), because you have it
  --duplicates               with --apply: undo only the duplicate effects (the second payout, not the
                             first) and prove the world equals the intended state: what the run would
                             have left had each effect been applied once
  --tools=FILE               a guard's journal: the tools file the guard enforced (default for the
                             checklist: the journal's scenario_file; required with --apply). Classes,
                             compensations and approval needs are taken from it, never from the journal:
                             a journaled call it disagrees with is listed as DISPUTED and never applied
  -- COMMAND ARGS...         with --apply on a guard's journal: issue the compensations against the real
                             server (started over stdio), newest first, each journaled too, and
                             report those that could not be issued (the server cannot prove its state:
                             read it back)
  --upstream=URL             the same against a server over Streamable HTTP
  --settle=STEP=applied|not-applied
                             a guard's journal: record a person's answer about the call at STEP (an
                             uncertain one, or one that applied and has been dealt with), appended to the
                             journal with who and when; it closes the item, and a guard started on the
                             journal honours it (a payout settled not-applied may be made again).
                             Repeat it for several steps; the guard must not be running on the journal
  --by=NAME                  with --settle: who settles (default: the user name, $USER or the OS's)
  -h, --help                 this help

The checklist lists every effect newest first: reversible ones with the exact compensating call,
compensable ones with their compensation and who must approve it, irreversible ones with what
happened, to whom and when, and how to respond (notify, contain, disclose). Effects of calls that
failed ambiguously are marked uncertain: reconcile first.

Exit status: 0 the checklist was printed (with --apply: the world is fully restored; against a
server: every compensation was issued and accepted); 1 with --apply, something remains; 2 a usage
or input error.
Example: oneway recover reports/latest/runs/invoice-and-notify/eager-t1.jsonl --apply`;

/** The options `main` parses (also read by the `oneway` command, e.g. to catch a forgotten `--` after `npm run`). */
export const OPTIONS = {
  reporter: { type: 'string' },
  format: { type: 'string' },
  scenario: { type: 'string' },
  tools: { type: 'string' },
  apply: { type: 'boolean' },
  approve: { type: 'boolean' },
  duplicates: { type: 'boolean' },
  upstream: { type: 'string' },
  settle: { type: 'string', multiple: true },
  by: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  try {
    // Everything after the first `--` is the server's command line (a guard journal's --apply).
    const dash = argv.indexOf('--');
    const command = dash >= 0 ? argv.slice(dash + 1) : undefined;
    const { values, positionals } = parseCli(dash >= 0 ? argv.slice(0, dash) : argv, OPTIONS, true, {
      command: 'oneway recover',
      what: 'the server command',
      positionals: 1,
    });
    if (values.help) {
      printHelp(io, HELP);
      return 0;
    }
    const format = reporterOption(values, io, 'text') as Format;
    if (!FORMATS.includes(format))
      throw new UsageError(`--reporter must be one of ${FORMATS.join(', ')}, got "${terminalText(format)}"`);
    if (values.approve && !values.apply)
      throw new UsageError(
        '--approve only makes sense with --apply',
        'add --apply to issue the compensations in a sandbox',
      );
    if (values.duplicates && !values.apply)
      throw new UsageError(
        '--duplicates only makes sense with --apply',
        'add --apply to undo the duplicates in a sandbox',
      );
    if (positionals.length === 0)
      throw new UsageError(
        'give the run record to recover from',
        'e.g. npx oneway recover reports/latest/runs/invoice-and-notify/eager-t1.jsonl',
      );
    const live = command !== undefined || values.upstream !== undefined;
    if (live && !values.apply)
      throw new UsageError('-- COMMAND and --upstream go with --apply', 'add --apply to issue the compensations');
    if (command !== undefined && values.upstream !== undefined)
      throw new UsageError('give -- COMMAND or --upstream=URL, not both');
    if (command !== undefined && command.length === 0)
      throw new UsageError('give the server command after --', 'e.g. -- npx -y @modelcontextprotocol/server-memory');

    const settling = values.settle ?? [];
    if (values.by !== undefined && settling.length === 0)
      throw new UsageError('--by goes with --settle', 'e.g. --settle=4=not-applied --by=alice');
    if (settling.length > 0 && values.apply)
      throw new UsageError('give --settle or --apply, not both', 'settle first, then apply');
    const answers = settling.map(parseSettle);

    if (values.apply || answers.length > 0) {
      // What changes a journal changes one file: a session journal is named on its own.
      const only = positionals[0] as string;
      if (positionals.length > 1 || statSafe(resolve(io.cwd, only))?.isDirectory())
        throw new UsageError(
          `${values.apply ? '--apply' : '--settle'} takes one journal file; got ${positionals.map((p) => terminalText(p)).join(' ')}`,
          `name the journal, or one session journal in ${sessionJournalDir('JOURNAL')}/, on its own`,
        );
      if (answers.length > 0) {
        const said = settleJournal(resolve(io.cwd, only), answers, values.by ?? userName(io.env));
        for (const line of said) io.stderr.write(`oneway recover: ${terminalText(line)}\n`);
      }
      return await recoverOne(only, { values, command, live, format, io });
    }
    // Several journals, a directory of them, or a journal with session journals beside it: each in turn.
    const resolved = positionals.map((p) => resolve(io.cwd, p));
    if (
      positionals.length === 1 &&
      !statSafe(resolved[0] as string)?.isDirectory() &&
      journalFiles(resolved).length <= 1
    )
      return await recoverOne(positionals[0] as string, { values, command, live, format, io });
    const { sessions, issues } = readJournalSessions(resolved);
    let code = 0;
    const shownAs = (f: string) => (relative(io.cwd, f).startsWith('..') ? f : relative(io.cwd, f));
    for (const i of issues) {
      io.stderr.write(`${paints(io).cerr.red(formatRecordIssue(terminalSafeDeep({ ...i, file: shownAs(i.file) })))}\n`);
      code = 2;
    }
    const docs: unknown[] = [];
    for (const session of sessions) {
      const shown = shownAs(session.file);
      let out = '';
      const sub: Io =
        format === 'json'
          ? {
              ...io,
              stdout: new Writable({
                write(chunk, _encoding, done) {
                  out += String(chunk);
                  done();
                },
              }),
            }
          : io;
      if (format !== 'json' && docs.length > 0) io.stdout.write('\n');
      docs.push(shown);
      code = Math.max(code, await recoverOne(shown, { values, command, live, format, io: sub }, session.record));
      if (format === 'json' && out.trim() !== '') docs[docs.length - 1] = { file: shown, ...JSON.parse(out) };
    }
    if (format === 'json') io.stdout.write(`${JSON.stringify({ journals: docs }, null, 2)}\n`);
    return code;
  } catch (e) {
    return commandFailed(e, io, 'oneway recover');
  }
}

/** Whether a path is there, and what: a file, a directory. */
function statSafe(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

interface RecoverContext {
  values: ReturnType<typeof parseCli<typeof OPTIONS>>['values'];
  command: string[] | undefined;
  live: boolean;
  format: Format;
  io: Io;
}

/** The checklist of one record or journal (read already, or read now; with --apply, its recovery): the exit status. */
async function recoverOne(
  file: string,
  { values, command, live, format, io }: RecoverContext,
  given?: ParsedRecord,
): Promise<number> {
  const { c, cerr } = paints(io);
  const read: RecordRead = given ? { ok: true, value: given } : readRecord(resolve(io.cwd, file));
  if (!read.ok) {
    for (const i of read.issues) io.stderr.write(`${cerr.red(formatRecordIssue(terminalSafeDeep({ ...i, file })))}\n`);
    return 2;
  }
  const record = read.value;
  for (const w of record.warnings)
    io.stderr.write(`${cerr.yellow(formatRecordIssue(terminalSafeDeep({ ...w, file })))}\n`);

  const journal = record.start.journal;
  if (journal && values.apply && !live)
    throw new UsageError(
      "a guard's journal is recovered against its server: add -- COMMAND, or --upstream=URL",
      `the journal began in front of ${journal.upstream}`,
    );
  if (!journal && live)
    throw new UsageError(
      'this is the record of an evaluation: --apply replays it in a sandbox; -- COMMAND and --upstream are for a journal of oneway guard',
    );
  if (!journal && values.tools !== undefined)
    throw new UsageError(
      '--tools is for a journal of oneway guard; this is the record of an evaluation',
      'name the scenario the run used with --scenario=FILE',
    );
  // A journal is a file anyone with write access can change: what recovery issues comes from the tools file.
  if (journal && values.apply && values.tools === undefined)
    throw new UsageError(
      "--apply on a guard's journal needs --tools=FILE, the tools file the guard enforced",
      'classes, compensations and approval needs are taken from it, never from the journal, e.g. --tools=tools.yaml',
    );
  const found = journal
    ? findTools(record, values.tools ?? values.scenario, io)
    : await findScenario(record, values.scenario, io);
  if (!found.ok) {
    for (const p of found.problems) io.stderr.write(`${formatProblem(p)}\n`);
    if (values.apply || values.scenario || values.tools) {
      io.stderr.write(
        cerr.red(
          `oneway recover: ${values.apply ? '--apply needs' : 'cannot load'} ${journal ? 'the tools file the guard enforced' : 'the scenario the run used'}\n`,
        ),
      );
      io.stderr.write(`  hint: pass it with ${journal ? '--tools' : '--scenario'}=FILE\n`);
      return 2;
    }
    io.stderr.write(
      cerr.yellow(
        'oneway recover: warning: without the scenario file, approvers are generic and tool descriptions unknown (--scenario=FILE)\n',
      ),
    );
  }
  const scenario = found.ok ? found.value.scenario : undefined;
  // A tools file's id is its file's name; what matters of it is checked line by line (disputes.ts).
  if (scenario && !journal && scenario.id !== record.start.scenario) {
    throw new UsageError(
      `the record is a run of "${record.start.scenario}", but --scenario is "${scenario.id}"`,
      'pass the scenario the run used',
    );
  }
  const checklist = buildChecklist(record, scenario);

  if (journal && values.apply && scenario) {
    const [cmd, ...args] = command ?? [];
    const target: UpstreamTarget =
      values.upstream !== undefined ? { url: values.upstream } : { command: cmd as string, args, cwd: io.cwd };
    const served = await applyToJournalServer(resolve(io.cwd, file), scenario, checklist, target, io, {
      approve: values.approve === true,
      duplicates: values.duplicates === true,
      policy: journal.policy as Policy,
    });
    if (format === 'json')
      io.stdout.write(
        `${JSON.stringify({ ...checklist, apply_to_server: served, warnings: record.warnings }, null, 2)}\n`,
      );
    else {
      const safe = terminalSafeDeep(checklist);
      const lines = serverReportLines(terminalSafeDeep(served), { ok: c.green, bad: c.red });
      io.stdout.write(
        format === 'markdown'
          ? `${renderMarkdown(safe, undefined, terminalText(file))}\n## Applied to the server\n\n${lines.map((l) => l.replace(/^ {2}/, '- ')).join('\n')}\n`
          : `${renderText(safe, undefined, c, terminalText(file))}\n${c.bold(lines[0] ?? '')}\n${lines.slice(1).join('\n')}\n`,
      );
    }
    return served.left > 0 ? 1 : 0;
  }

  let report: ApplyReport | undefined;
  if (values.apply && scenario) {
    const applied = await applyRecovery(
      record,
      scenario,
      { approve: values.approve === true, duplicates: values.duplicates === true },
      checklist,
    );
    if (!applied.ok) {
      for (const i of applied.issues)
        io.stderr.write(`${cerr.red(formatRecordIssue(terminalSafeDeep({ ...i, file })))}\n`);
      return 2;
    }
    report = applied.value;
  }

  if (format === 'json') io.stdout.write(renderJson(checklist, report, record.warnings));
  // The record holds planner and agent text (arguments, results): every string escaped for the console.
  else if (format === 'markdown')
    io.stdout.write(
      renderMarkdown(terminalSafeDeep(checklist), report && terminalSafeDeep(report), terminalText(file)),
    );
  else
    io.stdout.write(
      renderText(
        terminalSafeDeep(checklist),
        report && terminalSafeDeep(report),
        c,
        terminalText(file),
        outputWidth(io.stdout, io.env),
      ),
    );
  return report && !report.restored ? 1 : 0;
}

/**
 * Issues a guard journal's compensations against its server, through the guard's journaled call (so
 * each is journaled too), with the journal locked: a guard still running on it refuses this.
 */
async function applyToJournalServer(
  path: string,
  scenario: Scenario,
  checklist: Checklist,
  target: UpstreamTarget,
  io: Io,
  opts: { approve: boolean; duplicates: boolean; policy: Policy },
): Promise<ServerReport> {
  const log = (m: string) => io.stderr.write(`oneway recover: ${terminalText(m)}\n`);
  const upstream = new Upstream(target, log);
  const journal = Journal.open(path, undefined, { command: 'oneway recover --apply', existing: true, warn: log });
  try {
    const proxy = new GuardProxy({
      scenario,
      policy: opts.policy,
      upstream,
      journal,
      approvalTimeoutMs: 0,
      callTimeoutMs: 60_000,
      batchWindowMs: 0,
      log,
    });
    try {
      await upstream.connect();
    } catch (e) {
      throw new UsageError((e as Error).message, 'check the server command or URL; nothing was issued');
    }
    return await applyToServer(
      checklist,
      (op, args) => proxy.operatorCall(op, args, 'recover'),
      { approve: opts.approve, duplicates: opts.duplicates },
      upstream.where,
    );
  } finally {
    journal.close();
    await upstream.close();
  }
}

/** One `--settle` answer: `STEP=applied|not-applied`. */
function parseSettle(text: string): { step: number; applied: boolean } {
  const m = /^(\d+)=(applied|not-applied)$/.exec(text);
  if (!m)
    throw new UsageError(
      `--settle takes STEP=applied or STEP=not-applied, got "${terminalText(text)}"`,
      'e.g. --settle=4=not-applied: the checklist numbers each call by its step',
    );
  return { step: Number(m[1]), applied: m[2] === 'applied' };
}

/** Who settles, when `--by` does not say: the user's name from the environment, else the OS's. */
function userName(env: NodeJS.ProcessEnv): string {
  const named = env.USER ?? env.LOGNAME ?? env.USERNAME;
  if (named) return named;
  try {
    return userInfo().username;
  } catch {
    return 'unknown user';
  }
}

/**
 * Appends a settle event for each answer to a guard's journal (locked: a guard running on it
 * refuses this), after checking each names a call the journal sent. Says what it recorded.
 */
function settleJournal(path: string, answers: { step: number; applied: boolean }[], by: string): string[] {
  const read = readRecord(path);
  if (read.ok && !read.value.start.journal)
    throw new UsageError(
      "--settle records a person's answer in a guard's journal; this is the record of an evaluation",
      'an evaluation knows what each call did: there is nothing to settle',
    );
  const journal = Journal.open(path, undefined, { command: 'oneway recover --settle', existing: true });
  try {
    const calls = new Map(
      journal.before.flatMap((e) => (e.type === 'call' || e.type === 'intent' ? [[e.step, e] as const] : [])),
    );
    const out: string[] = [];
    for (const a of answers) {
      const c = calls.get(a.step);
      if (!c)
        throw new UsageError(
          `the journal has no call at step ${a.step}`,
          'give a step the checklist lists (oneway recover JOURNAL)',
        );
      if (c.type === 'call' && c.status === 'blocked')
        throw new UsageError(
          `step ${a.step} (${terminalText(c.tool)}) was refused by the guard: it never reached the server, there is nothing to settle`,
        );
      const at = new Date().toISOString();
      const step = journal.nextStep();
      journal.write({ type: 'settle', step, batch: step, settles: a.step, tool: c.tool, applied: a.applied, by, at });
      out.push(`settled step ${a.step} (${c.tool}) as ${a.applied ? 'applied' : 'not applied'}, by ${by} at ${at}`);
    }
    return out;
  } finally {
    journal.close();
  }
}

/** The tools file a guard's journal enforced: --scenario, else the journal's scenario_file. */
function findTools(record: ParsedRecord, spec: string | undefined, io: Io): Result<LoadedScenario> {
  return loadGuardTools(resolve(io.cwd, spec ?? record.start.scenario_file));
}

/**
 * The scenario a record's run used: --scenario (file or id), else the record's scenario_file
 * relative to the current directory, then to the oneway checkout, then its id among the bundled scenarios.
 */
async function findScenario(record: ParsedRecord, spec: string | undefined, io: Io): Promise<Result<LoadedScenario>> {
  if (spec) {
    const r = await resolveScenarioSpecs([spec], io);
    const first = r.loaded[0];
    if (r.problems.length > 0 || !first) return { ok: false, problems: r.problems };
    if (r.loaded.length > 1)
      return {
        ok: false,
        problems: [
          {
            code: 'spec',
            file: '--scenario',
            line: 0,
            col: 0,
            path: spec,
            message: `--scenario names ${r.loaded.length} scenarios; give the one the run used`,
          },
        ],
      };
    return { ok: true, value: first };
  }
  const named = record.start.scenario_file;
  const candidates = named ? [resolve(io.cwd, named), resolve(REPO_ROOT, named)] : [];
  for (const path of candidates) {
    if (!existsSync(path)) continue;
    const r = loadScenarioFile(path);
    if (!r.ok) return r;
    if (r.value.scenario.id === record.start.scenario) return { ok: true, value: r.value };
  }
  const byId = await resolveScenarioSpecs([record.start.scenario], io);
  const hit = byId.loaded.find((l) => l.scenario.id === record.start.scenario);
  if (hit) return { ok: true, value: hit };
  return {
    ok: false,
    problems: [
      {
        code: 'file',
        file: named || '(record)',
        line: 0,
        col: 0,
        path: 'run_start.scenario_file',
        message: `the scenario file of the run (${named || 'not recorded'}) was not found, and no bundled scenario has the id "${record.start.scenario}"`,
        severity: 'warning',
      },
    ],
  };
}

await runIfEntry(import.meta.url, (argv: string[]) => main(argv));
