#!/usr/bin/env node
/**
 * The shipped docs cite only what ships. In every Markdown file of a package:
 * - every relative link resolves to a file or directory the package has. Links with a scheme
 *   (https:, mailto:) and in-page anchors (#...) are not checked; a link's own #anchor or ?query is
 *   dropped first;
 * - every path written in the text, in backticks (`examples/guard/memory-tools.yaml`), that names a
 *   file of the oneway repository (its first directory is one of the repository's) names one the
 *   package has. A source file under harness/ counts as shipped when its compiled form in dist/
 *   is. Paths the reader makes (`scenarios/notify.yaml`: not a file of the repository, in a
 *   directory a project of theirs has too; anything under reports/, where runs write) and globs or
 *   placeholders are not checked. The pages for contributors (docs/development.md, docs/decisions/), read in a clone,
 *   cite the repository: their paths must be files of the repository instead.
 *
 * The consumer smoke test runs it over the unpacked tarball (`node scripts/check-doc-links.mjs DIR`),
 * test/docs/shipped.test.ts over the file list of `npm pack --dry-run`.
 * Exits 1 listing each broken citation as file:line: target.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The oneway repository (this script's parent directory): what a path in the text may name. */
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The repository's own directories: a path under one names a repository file even when there is none (a stale one). */
const OWN_DIRS = new Set(['harness', 'dist', 'docs', 'examples', 'test', 'scripts', 'api', '.ci']);
/** Where runs write (`reports/baseline/results.json`): a reader's project has its own. */
const OUTPUT_DIRS = new Set(['reports']);

/** Extensions of the files a page may cite by path. */
const PATH_IN_TEXT =
  /`(?:\.\/)?((?:\.?[\w@-][\w.@-]*\/)+[\w@-][\w.@-]*\.(?:ts|mts|cts|mjs|cjs|js|json|jsonl|ya?ml|md|sh|html|xml|png|txt))`/g;

/** Pages for contributors: they cite the repository, and are read in a clone of it. */
const forContributors = (page) => page === 'docs/development.md' || page.startsWith('docs/decisions/');

/** Files under `root`, recursively, as paths relative to it (node_modules left out). */
function filesUnder(root) {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === '.git') continue;
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(root, p).split('\\').join('/'));
    }
  };
  walk(root);
  return out;
}

/**
 * What a Markdown text cites, with its 1-based line: relative link targets (fenced and inline code
 * left out) and the backticked paths outside fenced code.
 * @param {string} text
 * @returns {{ line: number; target: string; how: 'link' | 'text' }[]}
 */
export function citations(text) {
  const out = [];
  let fenced = false;
  text.split('\n').forEach((raw, i) => {
    if (/^\s*(```|~~~)/.test(raw)) fenced = !fenced;
    if (fenced) return;
    for (const m of raw.matchAll(PATH_IN_TEXT)) out.push({ line: i + 1, target: m[1], how: 'text' });
    const line = raw.replace(/`[^`]*`/g, '');
    // [text](target) and ![alt](target), with an optional "title"; and reference definitions [x]: target.
    const targets = [
      ...[...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
      ...[...line.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)].map((m) => m[1]),
    ];
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
      out.push({ line: i + 1, target, how: 'link' });
    }
  });
  return out;
}

/**
 * The broken citations of a package's Markdown files, as `page:line: target (why)`.
 * @param {string[]} shipped the package's files, relative to its root ('/'-separated)
 * @param {(page: string) => string} read a shipped file's text
 * @param {string} [repo] the oneway repository, for the paths contributor pages cite
 * @returns {{ broken: string[]; checked: number }}
 */
export function brokenCitations(shipped, read, repo = REPO) {
  const files = new Set(shipped);
  const dirs = new Set(
    shipped.flatMap((f) =>
      f
        .split('/')
        .slice(0, -1)
        .map((_, i, a) => a.slice(0, i + 1).join('/')),
    ),
  );
  const has = (p) => files.has(p) || dirs.has(p);
  const compiled = (p) => /^harness\/.*\.(ts|mjs|cjs)$/.test(p) && files.has(`dist/${p.replace(/\.ts$/, '.js')}`);
  const broken = [];
  let checked = 0;
  for (const page of shipped.filter((f) => f.endsWith('.md'))) {
    for (const { line, target, how } of citations(read(page))) {
      if (how === 'link') {
        const path = decodeURIComponent(target.replace(/[#?].*$/, ''));
        if (path === '') continue;
        checked++;
        const to = posix.normalize(path.startsWith('/') ? path.slice(1) : posix.join(posix.dirname(page), path));
        if (to.startsWith('../') || !has(to.replace(/\/$/, '')))
          broken.push(`${page}:${line}: ${target} (a link to a file the package lacks)`);
        continue;
      }
      const first = target.split('/')[0];
      const inRepo = existsSync(join(repo, target));
      if (!existsSync(join(repo, first)) || OUTPUT_DIRS.has(first) || (!inRepo && !OWN_DIRS.has(first))) continue; // the reader's own
      checked++;
      if (forContributors(page)) {
        if (!inRepo) broken.push(`${page}:${line}: ${target} (no such file in the repository)`);
      } else if (!has(target) && !compiled(target)) {
        broken.push(
          `${page}:${line}: ${target} (${inRepo ? 'a file of the repository the package does not ship' : 'no such file'})`,
        );
      }
    }
  }
  return { broken, checked };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = resolve(process.argv[2] ?? '.');
  const { broken, checked } = brokenCitations(filesUnder(root), (page) => readFileSync(join(root, page), 'utf8'));
  if (broken.length > 0) {
    process.stderr.write(
      `${broken.length} of ${checked} citations in the Markdown of ${root} name what it does not have:\n  ${broken.join('\n  ')}\n` +
        `Ship the file (package.json "files"), or cite what ships (a page can hold the file itself, as docs/ci.md holds its workflow).\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`links: all ${checked} relative links and paths in the text resolve\n`);
}
