/**
 * `npm run recover -- RECORD.jsonl`: the incident checklist of a run, and with
 * `--apply` its reversible part applied in a sandbox, with proof.
 * Exit status: 0 checklist printed (with --apply: the world is fully restored);
 * 1 with --apply, something remains; 2 usage or input error.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
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
import { formatRecordIssue, readRecord, type ParsedRecord } from '../engine/record/reader.ts';
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

Usage: oneway recover RECORD.jsonl [options]
       oneway recover JOURNAL.jsonl --apply [--approve] -- COMMAND [ARGS...]
       oneway recover JOURNAL.jsonl --apply [--approve] --upstream=URL

  RECORD.jsonl               a run record (<out>/runs/<scenario>/<planner>-t<trial>.jsonl), or the
                             journal oneway guard wrote
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
  -- COMMAND ARGS...         with --apply on a guard's journal: issue the journaled compensations against
                             the real server (started over stdio), newest first, each journaled too, and
                             report those that could not be issued (the server cannot prove its state:
                             read it back); --scenario names the tools file if it moved
  --upstream=URL             the same against a server over Streamable HTTP
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
  apply: { type: 'boolean' },
  approve: { type: 'boolean' },
  duplicates: { type: 'boolean' },
  upstream: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const { c, cerr } = paints(io);
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
    if (positionals.length > 1)
      throw new UsageError(`one record at a time; got ${positionals.length}: ${positionals.join(' ')}`);
    const file = positionals[0] as string;
    const live = command !== undefined || values.upstream !== undefined;
    if (live && !values.apply)
      throw new UsageError('-- COMMAND and --upstream go with --apply', 'add --apply to issue the compensations');
    if (command !== undefined && values.upstream !== undefined)
      throw new UsageError('give -- COMMAND or --upstream=URL, not both');
    if (command !== undefined && command.length === 0)
      throw new UsageError('give the server command after --', 'e.g. -- npx -y @modelcontextprotocol/server-memory');

    const read = readRecord(resolve(io.cwd, file));
    if (!read.ok) {
      for (const i of read.issues)
        io.stderr.write(`${cerr.red(formatRecordIssue(terminalSafeDeep({ ...i, file })))}\n`);
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
    const found = journal ? findTools(record, values.scenario, io) : await findScenario(record, values.scenario, io);
    if (!found.ok) {
      for (const p of found.problems) io.stderr.write(`${formatProblem(p)}\n`);
      if (values.apply || values.scenario) {
        io.stderr.write(
          cerr.red(`oneway recover: ${values.apply ? '--apply needs' : 'cannot load'} the scenario the run used\n`),
        );
        io.stderr.write('  hint: pass it with --scenario=FILE\n');
        return 2;
      }
      io.stderr.write(
        cerr.yellow(
          'oneway recover: warning: without the scenario file, approvers are generic and tool descriptions unknown (--scenario=FILE)\n',
        ),
      );
    }
    const scenario = found.ok ? found.value.scenario : undefined;
    if (scenario && scenario.id !== record.start.scenario) {
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
  } catch (e) {
    return commandFailed(e, io, 'oneway recover');
  }
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
