/**
 * A small glob for `--scenario` specs (Node 20 has no `fs.glob`): `*`, `**`, `?`,
 * `[abc]`/`[!abc]` and `{a,b}`, matched against paths with `/` separators.
 * Directory walks skip `node_modules` and dot-directories, and do not follow
 * symlinked directories (no cycles).
 */
import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve, sep } from 'node:path';

/** True when a spec contains glob syntax. */
export function hasMagic(spec: string): boolean {
  return /[*?[\]{}]/.test(spec);
}

/**
 * The regular expression for a glob over `/`-separated relative paths.
 *
 * @example
 * globToRegExp('billing/**\/*.yaml').test('billing/eu/invoice.yaml') // true
 */
export function globToRegExp(pattern: string): RegExp {
  return new RegExp(`^${source(pattern)}$`);
}

function source(p: string): string {
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i] as string;
    if (c === '\\' && i + 1 < p.length) {
      re += escape(p[++i] as string);
    } else if (c === '*') {
      if (p[i + 1] === '*') {
        const slash = p[i + 2] === '/';
        // `**/` is zero or more whole directories; a bare `**` is anything.
        re += slash ? '(?:[^/]*/)*' : '.*';
        i += slash ? 2 : 1;
      } else re += '[^/]*';
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '[') {
      const end = p.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        let body = p.slice(i + 1, end);
        const negate = body[0] === '!' || body[0] === '^';
        if (negate) body = body.slice(1);
        re += `[${negate ? '^/' : ''}${body.replace(/[\\\]]/g, '\\$&')}]`;
        i = end;
      }
    } else if (c === '{') {
      const end = p.indexOf('}', i);
      if (end < 0) re += '\\{';
      else {
        re += `(?:${p
          .slice(i + 1, end)
          .split(',')
          .map(source)
          .join('|')})`;
        i = end;
      }
    } else re += escape(c);
  }
  return re;
}

function escape(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

export interface WalkEntry {
  /** Absolute path. */
  path: string;
  /** Path relative to the walk's base, `/`-separated. */
  rel: string;
  dir: boolean;
}

/** Every file and directory under `base` (not `base` itself), sorted, to `maxDepth` levels. */
export async function walk(base: string, maxDepth = Infinity): Promise<WalkEntry[]> {
  const out: WalkEntry[] = [];
  const visit = async (dir: string, rel: string, depth: number): Promise<void> => {
    if (depth > maxDepth) return;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return; // unreadable directories are skipped, as a shell glob would
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const path = join(dir, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        const st = await stat(path).catch(() => undefined);
        isFile = st?.isFile() ?? false;
        isDir = false; // not followed: a link back up would loop
        if (st?.isDirectory()) out.push({ path, rel: r, dir: true });
      }
      if (isDir) {
        if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
        out.push({ path, rel: r, dir: true });
        await visit(path, r, depth + 1);
      } else if (isFile) out.push({ path, rel: r, dir: false });
    }
  };
  await visit(base, '', 1);
  return out;
}

/**
 * The files and directories matching a glob, relative to `cwd` unless the pattern is absolute.
 *
 * @example
 * await glob('scenarios/**\/*.yaml', process.cwd()) // ['/repo/scenarios/billing/invoice-and-notify.yaml', ...]
 */
export async function glob(pattern: string, cwd: string): Promise<WalkEntry[]> {
  const { base, rest } = globBase(pattern, cwd);
  const re = globToRegExp(rest);
  const depth = rest.includes('**') ? Infinity : rest.split('/').length;
  const entries = await walk(base, depth);
  return entries.filter((e) => re.test(e.rel));
}

/**
 * A glob's fixed directory (its segments before the first with a wildcard, resolved from `cwd`
 * unless absolute) and the pattern below it: where `glob` walks, and what `eval --watch` watches.
 *
 * @example
 * globBase('scenarios/**\/*.yaml', '/repo') // { base: '/repo/scenarios', rest: '**\/*.yaml' }
 */
export function globBase(pattern: string, cwd: string): { base: string; rest: string } {
  const posix = pattern.split(sep).join('/');
  const segments = posix.split('/');
  const fixed: string[] = [];
  while (segments.length > 1 && !hasMagic(segments[0] as string)) fixed.push(segments.shift() as string);
  const baseText = fixed.join('/');
  return { base: isAbsolute(posix) ? resolve(baseText || '/') : resolve(cwd, baseText), rest: segments.join('/') };
}
