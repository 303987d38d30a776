/**
 * `oneway eval --watch`: after a first, full evaluation, wait for the files it read to change and
 * evaluate again, re-running only what a change affects, as vitest re-runs the tests of a file
 * that changed. The evaluation is the pipeline's (harness/features/pipeline/), and so is what it
 * read (`Watched`, read.ts); here are what a change affects (`changeOf`), the watching, the keys,
 * and the loop (`watchLoop`).
 *
 * Each watched file is seen through a watcher on its directory, never on the file: an editor that
 * saves by writing a new file and renaming it over the old one (vim, JetBrains) replaces the file
 * a file watcher would be holding. Events are collected for DEBOUNCE_MS after the last one, so a
 * save (or a `git checkout`) is one change.
 */
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { terminalText } from '../util/terminal-text.ts';
import type { Watched } from '../features/pipeline/read.ts';
import type { Io } from './common.ts';
import { quitStatus, type Interruption } from './signals.ts';

/** How long after the last file event a change is acted on: an editor's save is several events. */
const DEBOUNCE_MS = 150;
/** Directories never watched (nor walked for new scenario files). */
const SKIPPED_DIRS = new Set(['node_modules', '.git']);
/** Directories watched under one scenario directory at most: a directory this deep is not a scenario library. */
const MAX_DIRS = 2_000;
/** A new file in a scenario directory is a scenario when it ends so (as the loader takes a directory's files). */
const SCENARIO_EXT = new Set(['.yaml', '.yml']);

/** What a change affects: the runs of these scenarios and of these planners are done again, or all runs. */
export interface Change {
  /** The changed files that matter (absolute), in the order they were seen. */
  files: string[];
  /** Re-run everything: the config file, the plan or the guard policy changed, or the user asked (`a`). */
  all: boolean;
  /** Scenario ids whose runs are done again, every planner's. */
  scenarios: Set<string>;
  /** Planner names whose runs are done again, on every scenario. */
  planners: Set<string>;
}

const within = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);

/**
 * What the changed files affect, or undefined when none of them matters (an editor's swap file, a
 * file beside a scenario): a scenario file re-runs its scenarios, a planner file (or a file it
 * imports) its planners, a new scenario file in a watched directory runs it (a scenario is run
 * for every planner when it is new), the config, plan and guard policy re-run everything.
 *
 * @example
 * changeOf(['/p/scenarios/email.yaml'], watched) // { files: ['/p/scenarios/email.yaml'], all: false, scenarios: {'email-tiny'}, planners: {} }
 */
export function changeOf(paths: Iterable<string>, w: Watched, all = false): Change | undefined {
  const change: Change = { files: [], all, scenarios: new Set(), planners: new Set() };
  for (const path of new Set(paths)) {
    if (w.ignore.some((d) => within(path, d))) continue;
    const ids = w.scenarios.get(path);
    const names = w.planners.get(path);
    if (w.everything.includes(path)) change.all = true;
    else if (ids) for (const id of ids) change.scenarios.add(id);
    else if (names) for (const name of names) change.planners.add(name);
    else if (
      !w.analysis.includes(path) &&
      !(SCENARIO_EXT.has(extname(path).toLowerCase()) && w.scenarioDirs.some((d) => within(path, d)))
    )
      continue;
    change.files.push(path);
  }
  return change.files.length > 0 || all ? change : undefined;
}

/** Whether `path` is a directory (false when it is gone). */
const isDir = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** `dir` and the directories under it, but node_modules, .git and ignored ones (at most MAX_DIRS). */
function dirsUnder(dir: string, ignore: readonly string[]): string[] {
  const out: string[] = [];
  const todo = [dir];
  while (todo.length > 0 && out.length < MAX_DIRS) {
    const d = todo.pop() as string;
    if (ignore.some((i) => within(d, i))) continue;
    out.push(d);
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) if (e.isDirectory() && !SKIPPED_DIRS.has(e.name)) todo.push(join(d, e.name));
  }
  return out;
}

/** The directories to watch for `w`: each watched file's (where it exists), each scenario directory and those under it. */
function watchedDirs(w: Watched): Set<string> {
  const files = [...w.scenarios.keys(), ...w.planners.keys(), ...w.everything, ...w.analysis];
  const dirs = new Set(files.map((f) => dirname(f)).filter(isDir));
  for (const d of w.scenarioDirs) if (isDir(d)) for (const sub of dirsUnder(d, w.ignore)) dirs.add(sub);
  return dirs;
}

/**
 * Directory watchers for a `Watched`, debounced: `onChange` gets the paths that changed once no
 * event came for DEBOUNCE_MS. `set` moves it to the next evaluation's files; events keep being
 * collected meanwhile, so a file saved during an evaluation is a change after it.
 */
class DirWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private watched: Watched | undefined;

  constructor(private readonly onChange: (paths: string[]) => void) {}

  /** Watches what `w` names (and no longer what it does not). */
  set(w: Watched): void {
    this.watched = w;
    const dirs = watchedDirs(w);
    for (const [dir, watcher] of this.watchers)
      if (!dirs.has(dir)) {
        watcher.close();
        this.watchers.delete(dir);
      }
    for (const dir of dirs) this.add(dir);
  }

  /** How many directories are watched. */
  get size(): number {
    return this.watchers.size;
  }

  close(): void {
    clearTimeout(this.timer);
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private add(dir: string): void {
    if (this.watchers.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: true }, (_event, name) => this.saw(dir, name));
    } catch {
      return; // gone since: its files are seen as gone by the next evaluation
    }
    watcher.on('error', () => {
      watcher.close();
      this.watchers.delete(dir);
    });
    this.watchers.set(dir, watcher);
  }

  private saw(dir: string, name: string | Buffer | null): void {
    const w = this.watched;
    if (!w) return;
    if (name === null) {
      // No name (some platforms): every watched file of the directory may have changed.
      for (const f of [...w.scenarios.keys(), ...w.planners.keys(), ...w.everything, ...w.analysis])
        if (dirname(f) === dir) this.pending.add(f);
    } else {
      const path = join(dir, String(name));
      // A directory made in a scenario directory: watched from now on, and its scenario files are new.
      if (!w.ignore.some((d) => within(path, d)) && w.scenarioDirs.some((d) => within(path, d)) && isDir(path)) {
        for (const sub of dirsUnder(path, w.ignore)) {
          this.add(sub);
          for (const f of readdirSync(sub)) this.pending.add(join(sub, f));
        }
      } else this.pending.add(path);
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const paths = [...this.pending];
      this.pending.clear();
      this.onChange(paths);
    }, DEBOUNCE_MS);
  }
}

/** What one evaluation of watch mode came to: its exit status, what to watch next, and whether a signal stopped it. */
export interface Outcome {
  code: number;
  watched: Watched;
  /** A signal stopped the evaluation: watch mode ends with its status (130/143, harness/cli/signals.ts). */
  stopped: boolean;
}

type Event = { kind: 'paths'; paths: string[] } | { kind: 'all' } | { kind: 'quit'; signal?: 'SIGINT' | 'SIGTERM' };

/**
 * The keys watch mode reads on a terminal: q quits, a (or Enter) re-runs everything, Ctrl-C is
 * SIGINT's (raw mode turns it into a key). Nothing is read from a stdin that is not a terminal.
 * Returns the function that stops reading.
 */
function readKeys(stdin: Io['stdin'], on: (key: string) => void): () => void {
  if (!stdin?.isTTY) return () => {};
  const data = (d: Buffer | string) => {
    for (const key of String(d)) on(key);
  };
  stdin.setRawMode?.(true);
  stdin.on('data', data);
  stdin.resume();
  return () => {
    stdin.off('data', data);
    stdin.setRawMode?.(false);
    stdin.pause();
  };
}

/** Up to three changed files, relative to `cwd`, and how many more. */
function named(files: readonly string[], cwd: string): string {
  const shown = files.slice(0, 3).map((f) => terminalText(relative(cwd, f) || f));
  return `${shown.join(', ')}${files.length > 3 ? ` and ${files.length - 3} more` : ''}`;
}

/**
 * Watch mode's loop, after the first evaluation (`first`): wait for a change, then `rerun` with
 * what it affects; the console is cleared before each re-run on a terminal (a separator line is
 * printed otherwise). Ends on q or Ctrl-C while waiting, with the last evaluation's exit status
 * (SIGTERM: 143), or as soon as a signal stopped an evaluation, with that one's (130/143).
 */
export async function watchLoop(o: {
  io: Io;
  signals: Interruption;
  first: Outcome;
  rerun(change: Change): Promise<Outcome>;
}): Promise<number> {
  const { io, signals } = o;
  let last = o.first;
  if (last.stopped) return last.code;
  const queue: Event[] = [];
  let wake: (() => void) | undefined;
  const push = (e: Event) => {
    queue.push(e);
    wake?.();
  };
  const watcher = new DirWatcher((paths) => push({ kind: 'paths', paths }));
  const keys = io.stdin?.isTTY === true;
  const stopKeys = readKeys(io.stdin, (key) => {
    if (key === 'q') push({ kind: 'quit' });
    else if (key === 'a' || key === '\r') push({ kind: 'all' });
    else if (key === '\u0003') signals.raise('SIGINT');
  });
  const say = (m: string) => io.stderr.write(`oneway --watch: ${m}\n`);
  try {
    watcher.set(last.watched);
    for (let round = 2; ; round++) {
      say(
        `watching ${watcher.size} director${watcher.size === 1 ? 'y' : 'ies'}; waiting for changes (${keys ? 'q or Ctrl-C to quit, a to re-run all' : 'Ctrl-C to quit'})`,
      );
      let change: Change | undefined;
      let quit: Extract<Event, { kind: 'quit' }> | undefined;
      const stopWaiting = signals.waiting((signal) => push({ kind: 'quit', signal }));
      try {
        while (!change && !quit) {
          while (queue.length === 0) await new Promise<void>((r) => (wake = r));
          wake = undefined;
          const events = queue.splice(0);
          quit = events.find((e): e is Extract<Event, { kind: 'quit' }> => e.kind === 'quit');
          const paths = events.flatMap((e) => (e.kind === 'paths' ? e.paths : []));
          change = changeOf(
            paths,
            last.watched,
            events.some((e) => e.kind === 'all'),
          );
        }
      } finally {
        stopWaiting();
      }
      if (quit) return quit.signal ? quitStatus(quit.signal, last.code) : last.code;
      const what = change?.files.length ? `${named(change.files, io.cwd)} changed` : 're-running everything (a)';
      // The screen cleared (and its scrollback), as vitest does; on a pipe, a line between evaluations.
      if (io.stdout.isTTY) io.stdout.write('\u001b[2J\u001b[3J\u001b[H');
      else io.stdout.write(`\n── oneway eval --watch: evaluation ${round} (${what}) ──\n`);
      say(what);
      last = await o.rerun(change as Change);
      if (last.stopped) return last.code;
      watcher.set(last.watched);
    }
  } finally {
    watcher.close();
    stopKeys();
  }
}
