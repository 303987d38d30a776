/** What every oneway command shares: argument parsing with clear errors, and where things live. */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../errors.ts';
import { suggest } from '../loader/did-you-mean.ts';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BUNDLED_SCENARIOS = resolve(REPO_ROOT, 'scenarios');

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  cwd: string;
  env: NodeJS.ProcessEnv;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** util.parseArgs, with unknown or malformed options turned into a UsageError with a did-you-mean. */
export function parseCli<O extends Options>(argv: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (e) {
    const msg = (e as Error).message;
    const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(msg)?.[1];
    if (unknown) {
      const s = suggest(unknown.replace(/^-+/, '').split('=')[0] ?? '', Object.keys(options));
      throw new UsageError(`unknown option ${unknown}`, s ? `did you mean --${s}? (see --help)` : 'see --help');
    }
    throw new UsageError(msg.replace(/\. To specify.*$/s, ''), 'see --help');
  }
}

/** Values of a repeatable, comma-separated option. */
export function list(values: string[] | undefined, fallback: string[]): string[] {
  const out = (values ?? []).flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
  return out.length > 0 ? out : fallback;
}

export function positiveInt(raw: string | undefined, name: string, fallback: number, min = 1): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > 2 ** 31) throw new UsageError(`--${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}
