#!/usr/bin/env node
/**
 * Every relative link in every Markdown file under a directory resolves to a file or directory there.
 * The consumer smoke test runs it over the unpacked tarball (`node scripts/check-doc-links.mjs DIR`):
 * what npm installs must not link to files it does not ship. Links with a scheme (https:, mailto:)
 * and in-page anchors (#...) are not checked; a link's own #anchor or ?query is dropped first.
 * Exits 1 listing each broken link as file:line: target.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Markdown files under `root`, recursively (node_modules left out). */
function markdownFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules') continue;
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.md')) out.push(p);
    }
  };
  walk(root);
  return out;
}

/** The relative link targets in one Markdown text, with their 1-based line; fenced and inline code left out. */
function relativeLinks(text) {
  const out = [];
  let fenced = false;
  text.split('\n').forEach((raw, i) => {
    if (/^\s*(```|~~~)/.test(raw)) fenced = !fenced;
    if (fenced) return;
    const line = raw.replace(/`[^`]*`/g, '');
    // [text](target) and ![alt](target), with an optional "title"; and reference definitions [x]: target.
    const targets = [
      ...[...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
      ...[...line.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)].map((m) => m[1]),
    ];
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
      out.push({ line: i + 1, target });
    }
  });
  return out;
}

const root = resolve(process.argv[2] ?? '.');
const broken = [];
let checked = 0;
for (const file of markdownFiles(root)) {
  for (const { line, target } of relativeLinks(readFileSync(file, 'utf8'))) {
    checked++;
    const path = decodeURIComponent(target.replace(/[#?].*$/, ''));
    if (path === '') continue;
    const to = path.startsWith('/') ? join(root, path) : resolve(dirname(file), path);
    if (!to.startsWith(root) || !existsSync(to)) broken.push(`${relative(root, file)}:${line}: ${target}`);
  }
}
if (broken.length > 0) {
  process.stderr.write(
    `${broken.length} of ${checked} relative links resolve to nothing in ${root}:\n  ${broken.join('\n  ')}\n`,
  );
  process.exit(1);
}
process.stdout.write(`links: all ${checked} relative links resolve\n`);
