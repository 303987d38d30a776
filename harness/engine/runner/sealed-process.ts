/**
 * Sealed processes: a user's module (a planner file, a fuzz property module) runs in a Node process
 * of its own, never in the harness's. What the process may do is decided before its first line:
 *
 * - Node's permission model (`--permission` from Node 22.13 and 23.5, `--experimental-permission`
 *   before): file reads anywhere, writes only in the process's own scratch directory (its TMPDIR),
 *   and no child process, worker thread, native addon, WASI or inspector; no `--allow-*` flag for
 *   any of those is ever given, and NODE_OPTIONS is not passed on;
 * - sandbox/child-seal.cjs, preloaded: the network sealed by the socket layer, signals and the
 *   inspector of other processes, other processes' priority and off-thread loader hooks refused,
 *   and every refused reach written to the harness at once as an escape;
 * - an OS memory limit (RLIMIT_DATA, through the shell's `ulimit -d`, on every POSIX system; Linux
 *   counts every private writable mapping in it, so memory outside V8's heap is capped too) and a
 *   V8 heap limit;
 * - a process group of its own (`detached`), killed as a group (SIGKILL) when the harness is done
 *   with it, at a decision timeout, and when the harness exits.
 *
 * The process talks to the harness over two pipes: requests on its fd 3, and everything it says,
 * in order, on its fd 4, one JSON line a message. Every line is checked against the caller's schema
 * (`escape` lines against this module's own). A line that is not JSON, does not match, is too long,
 * or a channel closed or replaced while the process lives (child-seal.cjs exits with
 * CHANNEL_LOST_EXIT then) breaches the channel: it counts as an escape, and the process is killed,
 * which ends what it was doing as a planner error. Escapes are counted here, from those lines: the
 * process never reports a count.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { UsageError } from '../../core/errors.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { terminalText } from '../../util/terminal-text.ts';
import type { SealMode } from '../results/types.ts';
import socketSeal from '../sandbox/socket-seal.cjs';
import { carriedKey, readCarried, writeCarried, type LlmCache } from './carried-cache.ts';
import { runContext, seal, type Escape } from '../sandbox/seal.ts';

/** The child's main module and its preload, found when the first process starts (not at import: a DOM test environment has no file URLs). */
const own = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The variable that forces how sealed processes are cut off from the network: `auto` (the default), `namespace`, `socket`. */
const SEAL_ENV = 'ONEWAY_SEAL';

/** Where util-linux's `unshare` may be (a sealed process's shell has no PATH: found here, by full path). */
const UNSHARE = ['/usr/bin/unshare', '/bin/unshare', '/usr/sbin/unshare', '/sbin/unshare'];

/**
 * How the sealed process is started in a network namespace of its own: `unshare` (util-linux) with
 * these flags before the shell; none where no namespace can be had.
 */
let namespaceCache: { unshare: string; flags: string[] } | null | undefined;

/**
 * Whether this machine gives a process a network namespace of its own with no interface up, probed
 * once per process: as root a new net namespace (`unshare --net`), otherwise (or where root may not,
 * in a container without CAP_SYS_ADMIN) a user namespace holding one (`unshare --user
 * --map-root-user --net`), where the kernel allows unprivileged ones.
 */
export function namespaceSupport(): { unshare: string; flags: string[] } | null {
  if (namespaceCache !== undefined) return namespaceCache;
  namespaceCache = null;
  if (process.platform !== 'linux') return namespaceCache;
  const unshare = UNSHARE.find((p) => existsSync(p));
  if (!unshare) return namespaceCache;
  const tries = [['--user', '--map-root-user', '--net']];
  if (process.getuid?.() === 0) tries.unshift(['--net']);
  for (const flags of tries) {
    // A shell, not Node: a few milliseconds at each evaluation's start. A new net namespace holds
    // only a loopback interface, down (the kernel's rule; the namespace tests check what Node sees).
    const probe = spawnSync(unshare, [...flags, '/bin/sh', '-c', 'exit 0'], {
      env: {},
      stdio: 'ignore',
      timeout: 10_000,
    });
    if (probe.status === 0) return (namespaceCache = { unshare, flags });
  }
  return namespaceCache;
}

/**
 * How sealed processes are cut off from the network, recorded in results.json
 * (`config.seal.mode`): `namespace`, a network namespace of its own with no interface (the socket
 * layer preloaded too, allowed nothing; the planner's model requests go through the harness over
 * its channel), wherever one can be had; else `socket`, the socket layer alone (socket-seal.cjs),
 * which refuses and counts every connection, datagram, lookup, bind and listen but the allowed
 * origins' addresses. `ONEWAY_SEAL` forces one; `namespace` where none can be had is a usage error,
 * never a silent fallback. docs/seal.md says what each covers.
 */
export function sealMode(env: NodeJS.ProcessEnv = process.env, support: () => unknown = namespaceSupport): SealMode {
  const asked = env[SEAL_ENV] ?? 'auto';
  if (asked === 'socket') return 'socket';
  if (asked !== 'auto' && asked !== 'namespace')
    throw new UsageError(
      `${SEAL_ENV}=${JSON.stringify(asked.slice(0, 40))} is not a seal mode`,
      `set ${SEAL_ENV} to auto (the default: a network namespace where one can be had), namespace or socket`,
    );
  if (support()) return 'namespace';
  if (asked === 'namespace')
    throw new UsageError(
      `${SEAL_ENV}=namespace, but this machine gives a planner process no network namespace`,
      'namespaces need Linux, util-linux unshare, and root or unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0); unset ONEWAY_SEAL to fall back to the socket-level seal',
    );
  return 'socket';
}

/** The exit code of a sealed process whose channel is gone (child-seal.cjs exits with it). */
const CHANNEL_LOST_EXIT = 86;
/** The exit code of a sealed process whose shell could not turn core dumps off (it never starts Node then). */
const NO_CORE_LIMIT_EXIT = 87;
/** V8's old-space limit in a sealed process, MiB. */
const PROCESS_HEAP_MB = 1024;
/** The OS limit on a sealed process's data (heap, buffers, array buffers, WebAssembly memory), MiB. */
const PROCESS_DATA_MB = 2048;
/** The longest line a sealed process may send (a decision with large arguments fits). */
const MAX_LINE = 32 * 2 ** 20;
/** What a sealed process may print (to the harness's stderr, made safe) before the rest is dropped. */
const MAX_OUTPUT = 2 ** 20;
/**
 * Escapes and other unasked messages (rejected attempts) one request may bring: each is recorded, so
 * a flood would only grow the run's record and this process's memory. Past it, the channel is
 * breached: the run ends as a planner error, its escapes counted (so none is hidden by the cap).
 */
const MAX_ASIDES = 10_000;

/**
 * Flags of this process a sealed process gets too: they add globals (a WebSocket on Node 20), never a
 * permission. Any other flag of this process (`--import`, `--inspect`, `--allow-*`) is not passed on.
 */
const FEATURE_FLAGS = new Set([
  '--experimental-websocket',
  '--experimental-eventsource',
  '--no-experimental-websocket',
]);

/**
 * The flag that turns on Node's permission model in the running Node: `--permission` where it is
 * stable (22.13+, 23.5+; 24 knows no other), `--experimental-permission` before.
 *
 * @example
 * permissionFlag('20.19.0') // '--experimental-permission'
 * permissionFlag('22.13.0') // '--permission'
 */
export function permissionFlag(version = process.versions.node): string {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const stable = major >= 24 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13);
  return stable ? '--permission' : '--experimental-permission';
}

/** What the process runs (child-host.mjs reads it). */
export interface SealedInit {
  /** `echo`: no module; every request is answered with itself (the bench's bare round trip). */
  kind: 'planner' | 'property' | 'echo';
  /** The module to import: plain JavaScript (ts-loader.ts's moduleForProcess made it so). */
  file: string;
  /** How the user named it, for messages. */
  spec: string;
  /** "planner module ./x.ts", for messages. */
  what: string;
  fallbackName: string;
}

export interface SealedOptions {
  init: SealedInit;
  /** Where its scratch directory is made (removed when the process ends). */
  dir: string;
  /** Origins it may reach (an LLM planner's model endpoint), in socket mode: a namespace reaches none. */
  allow: { host: string; port: number }[];
  /**
   * The model endpoints (URL origins: `https://api.openai.com`) whose requests the harness carries
   * for it in namespace mode (its global `fetch` to one goes over the channel); unused in socket
   * mode, where it reaches `allow` itself.
   */
  model?: readonly string[];
  /**
   * The LLM cache of the requests it carries (`--llm-cache`): `record` keeps every good answer,
   * `replay` answers from the cache only, and the harness then lets no endpoint out for it.
   */
  cache?: LlmCache;
  /** Node flags the module needs (type stripping, source maps). */
  nodeFlags: string[];
  /**
   * Its whole environment (`--planner-env`: names the user passed on, with the harness's values;
   * checked by planner-env.ts): nothing of the harness's environment reaches it otherwise.
   */
  env?: Readonly<Record<string, string>>;
  /**
   * What it may read besides its own files and scratch directory: the user's module tree
   * (`moduleTree`) and the directory of the module it runs. Nothing else: not another process's
   * `/proc/<pid>/mem` or `environ`, not the project around the module.
   */
  read: readonly string[];
}

/**
 * What a user's module needs to read to run: its own directory (and below), and every
 * `node_modules` directory Node resolves its packages from (its directory's and each ancestor's),
 * each also by its real path (the module loader reads through symbolic links).
 *
 * @example
 * moduleTree('/p/planners/mine.mjs') // ['/p/planners', '/p/node_modules', ...] (those that exist)
 */
export function moduleTree(file: string): string[] {
  const out: string[] = [];
  let dir = dirname(resolve(file));
  out.push(dir);
  for (;;) {
    const nm = join(dir, 'node_modules');
    if (existsSync(nm)) out.push(nm);
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return withRealPaths(out);
}

/** Each path, and its real path where that differs (the permission model checks the path a call names). */
function withRealPaths(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    out.add(p);
    try {
      out.add(realpathSync(p));
    } catch {
      // not there: nothing to read through it
    }
  }
  return [...out];
}

/** The harness's own files a sealed process runs (its main module and its preload, and what they load). */
const OWN_FILES = [
  './child-host.mjs',
  './module-exports.mjs',
  './view-delta.mjs',
  '../sandbox/child-seal.cjs',
  '../sandbox/socket-seal.cjs',
];
/**
 * oneway's compiled code (what its npm package ships, no secret in it) and the node_modules its
 * imports resolve from: a planner file may import a built-in planner or the package's API from it,
 * as it would from node_modules/oneway. Found when the first process starts.
 */
const ownCode = (): string[] => moduleTree(join(PACKAGE_ROOT, 'dist', 'package'));

const escapeLine = z.object({
  t: z.literal('escape'),
  method: z.string().max(64),
  url: z.string().max(2000),
  reason: z.string().max(2000),
});
/** A model request the process asks the harness to make (namespace mode; child-seal.cjs). */
const fetchLine = z.object({
  t: z.literal('fetch'),
  id: z.number().int().nonnegative(),
  method: z.string().min(1).max(16),
  url: z.string().max(8192),
  headers: z.array(z.tuple([z.string().max(256), z.string().max(65_536)])).max(200),
  body: z.string().optional(),
});
/** The most of a model's answer the harness carries back (a chat completion is far smaller). */
const MAX_CARRIED_BODY = 16 * 2 ** 20;
/** Headers of the model's answer not passed on: the body goes decoded, its length is the process's to count. */
const HOP_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/** What the harness saw of a model request it carried, for the run that made it (counted and recorded). */
export interface Carried {
  /** The endpoint's answer status; 0 when none came (refused, failed, too large). */
  status: number;
  /** Answered from the LLM cache (`--llm-cache=replay`), with no request made. */
  cached?: boolean;
  prompt_tokens: number;
  completion_tokens: number;
}

const uncaughtLine = z.object({
  t: z.literal('uncaught'),
  error: z.object({ name: z.string().optional(), message: z.string().optional(), value: z.string().optional() }),
});

/** The tokens a model's answer says it used (an OpenAI-style `usage`), 0 when it says none. */
function tokensOf(bytes: Buffer): { prompt_tokens: number; completion_tokens: number } {
  try {
    const u = (
      JSON.parse(bytes.toString('utf8')) as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } }
    ).usage;
    const n = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : 0);
    return { prompt_tokens: n(u?.prompt_tokens), completion_tokens: n(u?.completion_tokens) };
  } catch {
    return { prompt_tokens: 0, completion_tokens: 0 };
  }
}

/** An escape made while nothing holds a sealed process: counted as unattributed (results.json). */
export const unattributed = (e: Escape): void => runContext.exit(() => socketSeal.report(e));

/**
 * Where what a process says while a request waits goes: the request's escapes (charged to whoever
 * made it), and messages that do not answer it (`aside`, e.g. a planner's rejected attempts while it
 * decides; true when taken).
 */
export interface Route {
  escape(e: Escape): void;
  aside?(m: unknown): boolean;
  /** A model request the harness carried for it (namespace mode); without it, none is carried (no run holds the process). */
  carried?(c: Carried): void;
}

/** A request waiting for its answer: answers come in the order the requests were sent. */
interface Waiting<M> {
  route: Route;
  resolve(m: M): void;
  reject(e: Error): void;
  /** Escapes and unasked messages so far. */
  asides: number;
}

/** Every sealed process alive, killed (with its scratch directory removed) when this process exits. */
const alive = new Set<SealedProcess<unknown>>();
let exitHook = false;

/**
 * One sealed process. Messages other than escapes are parsed with `schema`; each answers the oldest
 * request still waiting (requests may be sent before the last is answered: the process answers them
 * in order). Escapes go to that request's route, or, with none waiting, to `stray`. When the process
 * ends, dies or breaches its channel, every waiting request fails.
 */
export class SealedProcess<M> {
  readonly child: ChildProcess;
  private readonly waiting: Waiting<M>[] = [];
  dead = false;
  private error: Error | undefined;
  private readonly scratch: string;
  private killed = false;
  private breached = false;
  private printed = 0;
  /** Whether the process has said anything (a shell that exits before starting Node has not). */
  private heard = false;
  private readonly input: Writable;
  /** Requests held back to go with the next one (`request`'s `hold`). */
  private held = '';
  private readonly kind: SealedInit['kind'];
  /** The model endpoints whose requests it carries (namespace mode). */
  private readonly model: ReadonlySet<string>;
  /** The LLM cache of the requests it carries, if the user set one. */
  readonly cache: LlmCache | undefined;
  /** Whether the harness caches its model requests (it carries them, and the user set an LLM cache). */
  get caches(): boolean {
    return this.cache !== undefined && this.model.size > 0;
  }
  /** Ends the model requests it carries when the process ends (nobody waits for their answers then). */
  private readonly carrying = new AbortController();

  constructor(
    opts: SealedOptions,
    private readonly schema: z.ZodType<M>,
    /** Where escapes go while nobody holds the process. */
    private readonly stray: (e: Escape) => void = unattributed,
  ) {
    this.kind = opts.init.kind;
    // In a namespace the process reaches nothing itself: its socket layer allows nothing (a raw request
    // to the model is an escape), and its model requests are carried over the channel.
    const namespace = sealMode() === 'namespace' ? namespaceSupport() : null;
    this.model = new Set(namespace ? (opts.model ?? []) : []);
    this.cache = opts.cache;
    // The harness makes them: its own seal lets the endpoint out (none when it answers from the cache only).
    if (this.cache?.mode !== 'replay') for (const origin of this.model) seal.allowOrigin(origin);
    this.scratch = mkdtempSync(join(opts.dir, 'scratch-'));
    const args = [
      permissionFlag(),
      // Reads: its own files, its scratch directory, the user's module tree; one flag a path (Node 20.19+).
      ...withRealPaths([...OWN_FILES.map(own), ...ownCode(), this.scratch, ...opts.read]).map(
        (p) => `--allow-fs-read=${p}`,
      ),
      `--allow-fs-write=${this.scratch}`,
      '--disable-warning=ExperimentalWarning',
      `--max-old-space-size=${PROCESS_HEAP_MB}`,
      '--require',
      own('../sandbox/child-seal.cjs'),
      ...process.execArgv.filter((a) => FEATURE_FLAGS.has(a)),
      ...opts.nodeFlags,
      own('./child-host.mjs'),
    ];
    // Nothing of the harness's environment but what the user passed on (`--planner-env`).
    const env: NodeJS.ProcessEnv = {
      ...opts.env,
      ONEWAY_SEALED_PROCESS: JSON.stringify({
        allow: namespace ? [] : opts.allow,
        model: [...this.model],
        init: opts.init,
        lostExit: CHANNEL_LOST_EXIT,
      }),
      TMPDIR: this.scratch,
      TMP: this.scratch,
      TEMP: this.scratch,
    };
    const posix = process.platform !== 'win32';
    // The limits are set by the shell the process starts as (`exec` keeps its pid and group); a lower hard
    // limit already in place stays. No core dump (`ulimit -c 0`, soft and hard: a crash or process.abort()
    // would write the process's memory, keys included, into its working directory), and nothing the shell
    // adds to the environment (PWD).
    // In namespace mode `unshare` makes the namespace and execs the shell (same pid, same group).
    const sh = (rest: string[]): [string, string[]] =>
      namespace ? [namespace.unshare, [...namespace.flags, '/bin/sh', ...rest]] : ['/bin/sh', rest];
    const [command, argv] = posix
      ? sh([
          '-c',
          `ulimit -d ${PROCESS_DATA_MB * 1024} 2>/dev/null; ulimit -c 0 2>/dev/null || exit ${NO_CORE_LIMIT_EXIT}; unset PWD OLDPWD; exec "$0" "$@"`,
          process.execPath,
          ...args,
        ])
      : [process.execPath, args];
    this.child = spawn(command, argv, {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
      detached: posix,
      env,
      windowsHide: true,
    });
    // Linux: if memory runs out, the kernel ends a sealed process before the harness.
    if (this.child.pid !== undefined && process.platform === 'linux') {
      try {
        writeFileSync(`/proc/${this.child.pid}/oom_score_adj`, '1000');
      } catch {
        // gone already, or no /proc
      }
    }
    alive.add(this as SealedProcess<unknown>);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => {
        for (const p of alive) p.kill();
      });
    }
    this.input = this.child.stdio[3] as Writable;
    this.input.on('error', () => {});
    this.readLines(this.child.stdio[4] as Readable);
    for (const out of [this.child.stdout, this.child.stderr]) out?.on('data', (d: Buffer) => this.print(d));
    this.child.on('error', (e) => this.die(new Error(`the ${opts.init.kind}'s process did not start: ${e.message}`)));
    // 'close', not 'exit': every line it wrote before it ended is read first.
    this.child.on('close', (code, signal) => this.exited(code, signal));
  }

  /** Reads the channel: each complete line is one message. */
  private readLines(from: Readable): void {
    let held: string[] = [];
    let size = 0;
    from.setEncoding('utf8');
    from.on('data', (chunk: string) => {
      let start = 0;
      for (let i = chunk.indexOf('\n'); i >= 0 && !this.dead; i = chunk.indexOf('\n', start)) {
        held.push(chunk.slice(start, i));
        const line = held.length === 1 ? (held[0] as string) : held.join('');
        held = [];
        size = 0;
        start = i + 1;
        this.line(line);
      }
      if (start < chunk.length && !this.dead) {
        held.push(chunk.slice(start));
        size += chunk.length - start;
        if (size > MAX_LINE) this.breach(`a line longer than ${MAX_LINE} bytes`);
      }
    });
    // Closed while the process lives: it is killed, and `exited` sees our SIGKILL.
    from.on('end', () => {
      if (!this.dead && !this.killed) this.stop();
    });
    from.on('error', () => {});
  }

  private line(text: string): void {
    this.heard = true;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return this.breach(`a line that is not JSON (${JSON.stringify(text.slice(0, 80))})`);
    }
    // By its type: a failed parse is not free (a decision's round trip paid for two).
    const t = raw !== null && typeof raw === 'object' ? (raw as { t?: unknown }).t : undefined;
    if (t === 'escape') {
      const esc = escapeLine.safeParse(raw);
      if (!esc.success)
        return this.breach(`an escape line the harness does not take (${esc.error.issues[0]?.message})`);
      const { method, url, reason } = esc.data;
      return this.escape({ method, url, reason });
    }
    if (t === 'fetch') {
      const f = fetchLine.safeParse(raw);
      if (!f.success) return this.breach(`a model request the harness does not take (${f.error.issues[0]?.message})`);
      return this.carry(f.data);
    }
    if (t === 'uncaught') {
      const uncaught = uncaughtLine.safeParse(raw);
      if (!uncaught.success)
        return this.breach(`an uncaught line the harness does not take (${uncaught.error.issues[0]?.message})`);
      const e = uncaught.data.error;
      this.die(
        new Error(
          `${e.value ?? `${e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${e.message ?? 'unknown error'}`} (uncaught in the ${this.kind}'s process)`,
        ),
      );
      return this.kill();
    }
    const m = this.schema.safeParse(raw);
    if (!m.success)
      return this.breach(`a message the harness does not take (${m.error.issues[0]?.message ?? 'invalid'})`);
    const head = this.waiting[0];
    if (!head) return this.breach(`a message nobody asked for (${String(t)})`);
    if (head.route.aside?.(m.data)) return this.counted(head);
    this.waiting.shift();
    head.resolve(m.data);
  }

  private escape(e: Escape): void {
    const head = this.waiting[0];
    if (head) {
      head.route.escape(e);
      this.counted(head);
    } else this.stray(e);
  }

  /**
   * Makes a model request for the process (namespace mode), to a model endpoint it was given only,
   * with the harness's own `fetch` (under the harness's seal, which lets the endpoint out), and
   * answers it; the run holding the process counts it. A request to any other origin is an escape;
   * one made while no run holds the process is answered with an error and not made.
   */
  private carry(f: z.infer<typeof fetchLine>): void {
    const head = this.waiting[0];
    const answer = (m: object) => this.tell({ t: 'fetched', id: f.id, ...m });
    let origin = '';
    let shown = '(not a URL)';
    let u: URL | undefined;
    try {
      u = new URL(f.url);
      origin = u.origin;
      // Recorded without its query or credentials, as every escaping URL is.
      shown = `${u.protocol}//${u.host}${u.pathname}`.slice(0, 500);
    } catch {
      // not a URL: no origin
    }
    if (!u || !this.model.has(origin)) {
      this.escape({
        method: f.method,
        url: shown,
        reason: 'a model request to an origin that is not its model endpoint',
      });
      return answer({ error: 'not its model endpoint' });
    }
    if (!head?.route.carried)
      return answer({ error: 'model requests are carried only while the planner serves a run' });
    const route = head.route;
    this.counted(head);
    const url = u;
    const body = f.body !== undefined ? Buffer.from(f.body, 'base64') : undefined;
    const cache = this.cache;
    const key = cache ? carriedKey(f.method, url, body) : '';
    const give = (a: { status: number; statusText: string; headers: [string, string][]; body: Buffer }) =>
      answer({ status: a.status, statusText: a.statusText, headers: a.headers, body: a.body.toString('base64') });
    if (cache?.mode === 'replay') {
      // From the cache only: no request is made, and a miss is an error the planner sees (and a failed request).
      let hit;
      try {
        hit = readCarried(cache.dir, key);
      } catch (e) {
        route.carried?.({ status: 0, prompt_tokens: 0, completion_tokens: 0 });
        return answer({ error: (e as Error).message });
      }
      if (!hit) {
        route.carried?.({ status: 0, prompt_tokens: 0, completion_tokens: 0 });
        return answer({
          error:
            `replay miss: no cached answer for ${f.method} ${shown} (request ${key}) in ${cache.dir}; ` +
            'run with --llm-cache=record to record it',
        });
      }
      route.carried?.({ status: hit.status, cached: true, ...tokensOf(hit.body) });
      return give(hit);
    }
    void (async () => {
      try {
        const res = await fetch(f.url, {
          method: f.method,
          headers: f.headers,
          ...(body !== undefined ? { body } : {}),
          redirect: 'manual',
          signal: this.carrying.signal,
        });
        const bytes = Buffer.from(await res.arrayBuffer());
        if (bytes.length > MAX_CARRIED_BODY) {
          route.carried?.({ status: 0, prompt_tokens: 0, completion_tokens: 0 });
          return answer({ error: `the model's answer is larger than ${MAX_CARRIED_BODY} bytes` });
        }
        const headers: [string, string][] = [];
        res.headers.forEach((value, name) => {
          if (!HOP_HEADERS.has(name)) headers.push([name, value]);
        });
        const got = { status: res.status, statusText: res.statusText, headers, body: bytes };
        // Recorded as the built-in planners record: every good answer (a failed one is asked again next time).
        if (cache?.mode === 'record' && res.ok) writeCarried(cache.dir, key, { method: f.method, url, body }, got);
        route.carried?.({ status: res.status, ...tokensOf(bytes) });
        give(got);
      } catch (e) {
        route.carried?.({ status: 0, prompt_tokens: 0, completion_tokens: 0 });
        const cause = (e as { cause?: { message?: unknown } }).cause?.message;
        answer({ error: `${(e as Error).message}${typeof cause === 'string' ? ` (${cause})` : ''}` });
      }
    })();
  }

  private counted(w: Waiting<M>): void {
    if (++w.asides > MAX_ASIDES)
      this.breach(`more than ${MAX_ASIDES} escapes and unasked messages while one request waited`);
  }

  /** The channel was broken (a line that is not what the harness expects): an escape, and the process is done. */
  breach(what: string): void {
    if (this.dead || this.breached) return;
    this.breached = true;
    this.escape({
      method: 'CHANNEL',
      url: 'oneway:channel',
      reason: `the process broke its channel to the harness: ${what}`,
    });
    this.die(new Error(`the process broke its channel to the harness: ${what}`));
    this.kill();
  }

  private exited(code: number | null, signal: NodeJS.Signals | null): void {
    alive.delete(this as SealedProcess<unknown>);
    rmSync(this.scratch, { recursive: true, force: true });
    if (this.dead) return;
    if (code === CHANNEL_LOST_EXIT || (signal === 'SIGKILL' && this.killed))
      return this.breach('it closed or replaced its channel');
    if (code === NO_CORE_LIMIT_EXIT && !this.heard)
      return this.die(new Error('the process did not start: its shell could not turn core dumps off (ulimit -c 0)'));
    this.die(new Error(`the process exited (${signal ? `signal ${signal}` : `code ${code}`})`));
  }

  private die(e: Error): void {
    if (this.dead) return;
    this.dead = true;
    this.carrying.abort();
    this.error = e;
    for (const w of this.waiting.splice(0)) w.reject(e);
  }

  /** What it printed goes to the harness's stderr, made safe for a terminal, up to MAX_OUTPUT. */
  private print(d: Buffer): void {
    if (this.printed >= MAX_OUTPUT) return;
    const text = d.toString('utf8').slice(0, MAX_OUTPUT - this.printed);
    this.printed += text.length;
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    process.stderr.write(lines.map((l) => `${terminalText(l)}\n`).join(''));
    if (this.printed >= MAX_OUTPUT) process.stderr.write('oneway: (a sealed process printed more: dropped)\n');
  }

  /** Writes `line`, after the lines held back (`request`'s `hold`): one write, one wake-up of the process. */
  private write(line: string): void {
    const lines = this.held + line;
    this.held = '';
    this.input.write(lines);
  }

  /** Sends a message that waits for no answer (the answer to something the process asked). */
  tell(message: object): void {
    if (!this.dead) this.write(`${JSON.stringify(message)}\n`);
  }

  /**
   * Sends a request (none: waits for what the process says unasked, its `loaded`) and resolves with
   * its answer; rejects when the process ends first. With `hold`, the request is written with the
   * next one (a run's `create` goes with its first decision's request).
   */
  request(message: object | undefined, route: Route, hold = false): Promise<M> {
    return new Promise((resolve, reject) => {
      if (this.dead) return reject(this.error ?? new Error('the process is gone'));
      this.waiting.push({ route, resolve, reject, asides: 0 });
      if (message === undefined) return;
      const line = `${JSON.stringify(message)}\n`;
      if (hold) this.held += line;
      else this.write(line);
    });
  }

  /** Ends the process so that what happens from now on is a breach (a channel closed while it lives). */
  private stop(): void {
    this.killed = true;
    this.signalGroup();
  }

  private signalGroup(): void {
    try {
      if (this.child.pid === undefined) return;
      if (process.platform === 'win32') this.child.kill('SIGKILL');
      else process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }

  /** Kills the process group, whatever it is doing; nothing it says from now on is heard. */
  kill(): void {
    if (!this.dead) this.die(new Error('the process was stopped'));
    this.killed = true;
    this.signalGroup();
    this.unref();
    if (this.child.exitCode !== null || this.child.signalCode !== null) {
      alive.delete(this as SealedProcess<unknown>);
      rmSync(this.scratch, { recursive: true, force: true });
    }
  }

  /** Lets the harness exit while the process waits for work (or is being killed). */
  unref(): void {
    this.child.unref();
    for (const s of this.child.stdio) (s as { unref?: () => void } | null)?.unref?.();
  }

  ref(): void {
    this.child.ref();
    for (const s of this.child.stdio) (s as { ref?: () => void } | null)?.ref?.();
  }
}
