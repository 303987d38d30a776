/**
 * The docs' examples cannot rot: every fenced shell and YAML block in README.md, docs/ and the
 * planners/examples READMEs is checked.
 * - YAML parses; a block that is a whole scenario (id, title, task, tools, goal) loads without
 *   problems, through the same loader users get.
 * - Every `npm run <script>` names a script package.json has, and every `npx oneway <command>` (or
 *   `oneway <command>`) a command the bin has; each `--option` given to them is one that command
 *   parses.
 * A block right after `<!-- docs-check: skip -->` is left out (a deliberately broken example).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { COMMANDS, commandNamed } from '../../harness/cli/commands.ts';
import { loadScenarioText } from '../../harness/engine/loader/load.ts';

const REPO = resolve(import.meta.dirname, '../..');

function markdownFiles(): string[] {
  const out = ['README.md', 'planners/README.md', 'CONTRIBUTING.md'].filter((f) => existsSync(join(REPO, f)));
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.md')) out.push(relative(REPO, p));
    }
  };
  walk(join(REPO, 'docs'));
  walk(join(REPO, 'examples'));
  return out;
}

interface Block {
  file: string;
  line: number;
  lang: string;
  text: string;
}

function blocks(file: string): Block[] {
  const lines = readFileSync(join(REPO, file), 'utf8').split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\w*)\s*$/.exec(lines[i] as string);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i] as string); i++) body.push(lines[i] as string);
    const skipped = lines.slice(Math.max(0, start - 2), start).some((l) => l.includes('docs-check: skip'));
    if (!skipped) out.push({ file, line: start + 1, lang: (open[2] ?? '').toLowerCase(), text: body.join('\n') });
  }
  return out;
}

const ALL = markdownFiles().flatMap(blocks);
const SHELL = ALL.filter((b) => ['bash', 'sh', 'shell', 'console'].includes(b.lang));
const YAML = ALL.filter((b) => ['yaml', 'yml'].includes(b.lang));
const SCRIPTS = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
  .scripts;

/** npm scripts that are a oneway command (the rest, like test or typecheck, take no oneway options). */
const SCRIPT_COMMAND: Record<string, string> = Object.fromEntries(
  COMMANDS.flatMap((c) => [[c.name, c.name], ...(c.aliases ?? []).map((a) => [a, c.name])]),
);

/** The commands in a shell block: lines joined at `\`, comments and prompts dropped. */
function commandLines(text: string): string[] {
  return text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) =>
      l
        .replace(/^\s*\$\s+/, '')
        .replace(/\s+#\s.*$/, '')
        .trim(),
    )
    .filter((l) => l !== '' && !l.startsWith('#'))
    .flatMap((l) => l.split(/\s*(?:&&|\|\||;)\s*/));
}

/** Splits a command line into words, honouring single and double quotes, within a word too (`--agent-cmd="node --import tsx a.ts"` is one). */
function words(line: string): string[] {
  return [...line.matchAll(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g)].map((m) => m[0].replace(/"([^"]*)"|'([^']*)'/g, '$1$2'));
}

async function problemsOf(line: string): Promise<string[]> {
  const w = words(line);
  let command: string | undefined;
  let args: string[] = [];
  const npm = w.indexOf('npm');
  if (npm >= 0 && w[npm + 1] === 'run') {
    const script = w[npm + 2] === '-s' ? w[npm + 3] : w[npm + 2];
    if (!script) return [`"${line}": npm run without a script`];
    if (!(script in SCRIPTS)) return [`"${line}": package.json has no script "${script}"`];
    command = SCRIPT_COMMAND[script];
    const dashes = w.indexOf('--', npm);
    args = dashes >= 0 ? w.slice(dashes + 1) : [];
    if (command && dashes < 0 && w.slice(npm + 3).some((x) => x.startsWith('--')))
      return [`"${line}": options after npm run need a -- first`];
  } else {
    const at = w.findIndex((x, i) => x === 'oneway' && (i === 0 || w[i - 1] === 'npx'));
    if (at < 0) return [];
    const name = w[at + 1];
    if (!name || name.startsWith('-')) return [];
    const spec = commandNamed(name);
    if (!spec) return [`"${line}": oneway has no command "${name}"`];
    command = spec.name;
    args = w.slice(at + 2);
  }
  if (!command) return [];
  const spec = commandNamed(command);
  if (!spec) return [];
  const mod = await spec.load();
  const known = new Set(Object.keys(mod.OPTIONS));
  const out: string[] = [];
  for (const a of args) {
    const m = /^--([a-z][a-z0-9-]*)(=|$)/.exec(a);
    if (m && !known.has(m[1] as string)) out.push(`"${line}": ${command} has no option --${m[1]}`);
  }
  return out;
}

describe('docs examples', () => {
  it('finds the examples (not vacuous)', () => {
    expect(SHELL.length).toBeGreaterThan(10);
    expect(YAML.length).toBeGreaterThan(5);
  });

  it('every shell example names real scripts, commands and options', async () => {
    const problems: string[] = [];
    for (const b of SHELL)
      for (const line of commandLines(b.text))
        for (const p of await problemsOf(line)) problems.push(`${b.file}:${b.line}: ${p}`);
    expect(problems).toEqual([]);
  });

  it('every YAML example parses, and every whole scenario loads without problems', () => {
    const problems: string[] = [];
    for (const b of YAML) {
      const docs = parseAllDocuments(b.text);
      for (const d of docs) for (const e of d.errors) problems.push(`${b.file}:${b.line}: ${e.message.split('\n')[0]}`);
      const doc = docs[0]?.toJS() as Record<string, unknown> | null | undefined;
      if (doc && typeof doc === 'object' && ['id', 'title', 'task', 'tools', 'goal'].every((k) => k in doc)) {
        const r = loadScenarioText(b.text, `${b.file}:${b.line}`);
        if (!r.ok)
          for (const p of r.problems.filter((x) => x.severity !== 'warning'))
            problems.push(`${b.file}:${b.line}: ${p.path}: ${p.message}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('every relative link and #anchor points at something that exists', () => {
    const slug = (h: string) =>
      h
        .trim()
        .toLowerCase()
        .replace(/[`*_]/g, '')
        .replace(/[^\w\- ]/g, '')
        .replace(/ /g, '-');
    const anchorsOf = (file: string): Set<string> => {
      const out = new Set<string>();
      let fence = false;
      for (const l of readFileSync(file, 'utf8').split('\n')) {
        if (/^\s*```/.test(l)) fence = !fence;
        const m = fence ? null : /^#{1,6} (.*)$/.exec(l);
        if (m) out.add(slug(m[1] as string));
      }
      return out;
    };
    const broken: string[] = [];
    let checked = 0;
    for (const f of markdownFiles()) {
      const text = readFileSync(join(REPO, f), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) {
        const target = m[1] as string;
        if (/^(https?:|mailto:)/.test(target)) continue;
        checked++;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? join(REPO, f) : resolve(join(REPO, f), '..', path);
        if (!existsSync(file)) {
          broken.push(`${f}: ${target} (no such file)`);
          continue;
        }
        if (anchor && file.endsWith('.md') && !anchorsOf(file).has(anchor))
          broken.push(`${f}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });

  it('links nothing users do not have', () => {
    for (const f of markdownFiles()) expect(readFileSync(join(REPO, f), 'utf8'), f).not.toMatch(/\.\.\/shared\//);
  });
});
