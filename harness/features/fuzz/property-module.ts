/**
 * Properties by name: the built-ins, or a user's module given as a path
 * (`--property=./my-prop.ts`). A user property is a function over the run
 * record:
 *
 * ```ts
 * import type { RecordProperty } from 'oneway/fuzz';
 * export default {
 *   name: 'no-email-before-invoice',
 *   check(events) {
 *     // true (or nothing) when it holds; a message (or false) when it does not
 *   },
 * } satisfies RecordProperty;
 * ```
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../../core/errors.ts';
import { suggest } from '../../util/did-you-mean.ts';
import {
  bundledForProcess,
  importsTypeScript,
  looksLikeModulePath,
  moduleForProcess,
} from '../../engine/io/ts-loader.ts';
import { locatedLoadError } from '../../engine/io/syntax-error.ts';
import { moduleTree, SealedProcess, unattributed } from '../../engine/runner/sealed-process.ts';
import { verdictOf } from '../../engine/runner/module-exports.mjs';
import type { Escape } from '../../engine/sandbox/seal.ts';
import type { RecordEvent } from '../../core/record.ts';
import { BUILTIN_PROPERTIES, type FuzzProperty, type PropertyContext, type Verdict } from './properties.ts';
import { OWNERS, type Owner } from './fault.ts';

/** A property over one run's record; the context also offers the scenario and `rerun`. */
export interface RecordProperty {
  name: string;
  description?: string;
  /**
   * Who is at fault when it fails: `planner` (the default: what a planner must never do), `scenario`
   * (it checks the scenario's declarations), `oneway` (it checks oneway itself), or `caller` (whatever
   * made the calls: the planner under --planner, else oneway).
   */
  owner?: Owner;
  check(
    events: readonly RecordEvent[],
    ctx: PropertyContext,
  ): boolean | string | void | Promise<boolean | string | void>;
}

/**
 * Turns a record property into a fuzz property; a check that throws fails with the error's message.
 *
 * @example
 * const p = fromRecordProperty({ name: 'few-steps', check: (events) => events.filter((e) => e.type === 'call').length <= 5 || 'more than 5 calls' });
 */
export function fromRecordProperty(p: RecordProperty): FuzzProperty {
  return {
    name: p.name,
    description: p.description ?? '(user property)',
    ...(p.owner !== undefined ? { owner: p.owner } : {}),
    async check(ctx) {
      try {
        return verdictOf(await p.check(ctx.run.events, ctx));
      } catch (e) {
        return `check threw: ${e instanceof Error ? e.message : String(e)}`;
      }
    },
  };
}

/** How long one check of a property from a module may take. */
const CHECK_TIMEOUT_MS = 60_000;

/** Everything a property module's process may say (but escapes, which sealed-process.ts reads). */
const propertyMessage = z.discriminatedUnion('t', [
  z.object({
    t: z.literal('loaded'),
    properties: z
      .array(
        z.object({
          name: z.string().min(1).max(200),
          description: z.string().max(2000).optional(),
          owner: z.string().max(200).optional(),
        }),
      )
      .min(1),
  }),
  z.object({ t: z.literal('failed'), message: z.string(), hint: z.string().optional() }),
  z.object({ t: z.literal('verdict'), value: z.union([z.literal(true), z.string().min(1)]) }),
  z.object({
    t: z.literal('rerun'),
    id: z.number().int().nonnegative(),
    change: z.object({ guard: z.boolean().optional(), transport: z.enum(['msw', 'inprocess']).optional() }),
  }),
]);
type PropertyMessage = z.infer<typeof propertyMessage>;

/**
 * A property module's sealed process (engine/runner/sealed-process.ts): the module's code never
 * runs in the harness's process. One process serves every check, one at a time; one that ended
 * (crashed, exited, timed out, broke its channel) is started again for the next check.
 */
class PropertyModule {
  private proc: SealedProcess<PropertyMessage> | undefined;
  private busy: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly init: { file: string; spec: string; nodeFlags: string[]; dir: string; read: string[] },
  ) {}

  /** Starts a process and loads the module in it: the properties it exports. */
  async start(): Promise<{ name: string; description?: string; owner?: string }[]> {
    const { file, spec, nodeFlags, dir, read } = this.init;
    const what = `property module ${spec}`;
    const fallbackName = basename(spec, extname(spec));
    const p = new SealedProcess(
      { init: { kind: 'property', file, spec, what, fallbackName }, dir, allow: [], nodeFlags, read },
      propertyMessage,
    );
    let m: PropertyMessage;
    try {
      m = await p.request(undefined, { escape: unattributed });
    } catch (e) {
      throw new UsageError(
        `${what} failed to load: ${(e as Error).message}`,
        'check that the file compiles and its imports resolve',
      );
    }
    if (m.t === 'failed') {
      p.kill();
      throw new UsageError(await locatedLoadError(m.message, file), m.hint);
    }
    if (m.t !== 'loaded') {
      p.breach(`it said ${m.t} before it loaded`);
      throw new UsageError(`${what} failed to load: its process broke its channel`);
    }
    p.unref();
    this.proc = p;
    return m.properties;
  }

  /** One check, in the module's process; what it reached outside is a failure of the property. */
  check(index: number, ctx: PropertyContext): Promise<Verdict> {
    const next = this.busy.then(() => this.checkNow(index, ctx));
    this.busy = next.catch(() => {});
    return next;
  }

  private async checkNow(index: number, ctx: PropertyContext): Promise<Verdict> {
    if (!this.proc || this.proc.dead) await this.start();
    const p = this.proc as SealedProcess<PropertyMessage>;
    const escapes: Escape[] = [];
    const route = {
      escape: (e: Escape) => escapes.push(e),
      // A rerun the property asks for while its check runs: run here, and its record sent back.
      aside: (m: unknown) => {
        const x = m as PropertyMessage;
        if (x.t !== 'rerun') return false;
        void ctx.rerun(x.change).then(
          (run) => p.tell({ t: 'rerun', id: x.id, run }),
          () => p.kill(),
        );
        return true;
      },
    };
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), CHECK_TIMEOUT_MS)));
    p.ref();
    try {
      const m = await Promise.race([
        p.request(
          {
            t: 'check',
            index,
            run: ctx.run,
            ctx: {
              scenario: ctx.scenario,
              guarded: ctx.guarded,
              transport: ctx.transport,
              ...(ctx.plan ? { plan: ctx.plan } : {}),
            },
          },
          route,
        ),
        late,
      ]);
      if (m === 'late') {
        p.kill();
        return `check did not answer within ${CHECK_TIMEOUT_MS / 1000} s`;
      }
      if (m.t !== 'verdict') {
        p.breach(`it answered ${m.t} to a check`);
        return `check failed: the property module's process broke its channel (it answered ${m.t})`;
      }
      if (escapes.length > 0)
        return `the property module reached outside the sandbox: ${escapes.map((e) => `${e.method} ${e.url} (${e.reason})`).join('; ')}`;
      return m.value;
    } catch (e) {
      return `check failed: ${(e as Error).message}${escapes.length > 0 ? `; it reached outside the sandbox: ${escapes.map((x) => `${x.method} ${x.url}`).join('; ')}` : ''}`;
    } finally {
      clearTimeout(timer);
      if (!p.dead) p.unref();
    }
  }
}

/**
 * Loads the properties a module exports (`default`, one or a list, or `property` / `properties`).
 * The module runs in a sealed process of its own (docs/seal.md), as a planner file does: its
 * checks are asked there, and what it reaches outside fails the check.
 */
export async function loadPropertyModule(spec: string, cwd: string): Promise<FuzzProperty[]> {
  const file = resolve(cwd, spec);
  if (!existsSync(file)) throw new UsageError(`property module not found: ${spec}`, `looked at ${file}`);
  const dir = mkdtempSync(join(tmpdir(), 'oneway-property-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const what = `property module ${spec}`;
  let compiled = await moduleForProcess(file, join(dir, 'module'), what, cwd);
  // It may read its own module tree and its compiled module, nothing else.
  const read = (c: { file: string }) => [...moduleTree(file), dirname(c.file)];
  let module = new PropertyModule({
    file: compiled.file,
    spec,
    nodeFlags: compiled.nodeFlags,
    dir,
    read: read(compiled),
  });
  let listed: Awaited<ReturnType<PropertyModule['start']>>;
  try {
    listed = await module.start();
  } catch (e) {
    // A .js/.mjs module that imports TypeScript: bundled (with its imports), as a .ts one is.
    if (!(e instanceof UsageError) || !importsTypeScript(e.message)) throw e;
    compiled = await bundledForProcess(file, join(dir, 'module'), what, cwd);
    module = new PropertyModule({
      file: compiled.file,
      spec,
      nodeFlags: compiled.nodeFlags,
      dir,
      read: read(compiled),
    });
    listed = await module.start();
  }
  for (const p of listed) {
    if (p.owner !== undefined && !(OWNERS as readonly string[]).includes(p.owner))
      throw new UsageError(
        `property "${p.name}" in ${spec} has owner ${JSON.stringify(p.owner)}, which oneway cannot blame`,
        `owner is one of ${OWNERS.join(', ')} (who is at fault when it fails), or left out for planner`,
      );
  }
  return listed.map((p, index) => ({
    name: p.name,
    description: p.description ?? '(user property)',
    ...(p.owner !== undefined ? { owner: p.owner as Owner } : {}),
    source: spec,
    check: (ctx: PropertyContext) => module.check(index, ctx),
  }));
}

/**
 * The properties named on the command line, built-in names and module paths mixed.
 *
 * @example
 * await resolveProperties(['scoring-oracle', './props/no-email.ts'], process.cwd())
 */
export async function resolveProperties(specs: readonly string[], cwd: string): Promise<FuzzProperty[]> {
  const out: FuzzProperty[] = [];
  for (const spec of specs) {
    if (looksLikeModulePath(spec)) {
      out.push(...(await loadPropertyModule(spec, cwd)));
      continue;
    }
    const p = BUILTIN_PROPERTIES.find((b) => b.name === spec);
    if (!p) {
      const names = BUILTIN_PROPERTIES.map((b) => b.name);
      const s = suggest(spec, names);
      throw new UsageError(
        `unknown property "${spec}"`,
        `${s ? `did you mean "${s}"? ` : ''}built-in properties: ${names.join(', ')}; or give a path to a module`,
      );
    }
    out.push(p);
  }
  const names = out.map((p) => p.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new UsageError(`property "${dup}" is given twice`);
  return out;
}
