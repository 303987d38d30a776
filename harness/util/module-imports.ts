/**
 * What a module imports, read from its text (nothing is run): the one rule for following a module's
 * imports, used by the scenario cache (the code that loads scenarios, to key its entries) and by
 * `eval --watch` (a planner file and the local files it imports). A specifier built at run time is
 * not seen; `import type` is erased and not followed.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';

// `import ... from '...'`, `export ... from '...'`, `import '...'`, `import('...')` and `require('...')`.
const IMPORTS =
  /^\s*(?:import|export)\s+(?!type\s)[^'";]*?\sfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/gm;
const MODULE_EXT = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.tsx', '.jsx'];

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** The file a relative import names, as Node or a TypeScript bundler finds it (`./x.js` may be `./x.ts`). */
function localFile(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  const candidates = [
    base,
    base.replace(/\.(m|c)?js$/, '.$1ts'),
    ...MODULE_EXT.map((e) => `${base}${e}`),
    ...MODULE_EXT.map((e) => join(base, `index${e}`)),
  ];
  return candidates.find((c) => existsSync(c) && isFile(c));
}

/**
 * `start` and the local files it imports, at any depth (relative specifiers only, never into
 * node_modules, at most `max` files), and the packages they import (`node:` built-ins left out).
 *
 * @example
 * moduleImports('/p/planners/mine.ts').files // ['/p/planners/mine.ts', '/p/planners/rules.ts']
 */
export function moduleImports(start: string, max = Infinity): { files: string[]; packages: string[] } {
  const files = new Set([start]);
  const packages = new Set<string>();
  const todo = [start];
  while (todo.length > 0 && files.size < max) {
    const f = todo.pop() as string;
    let text: string;
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    for (const m of text.matchAll(IMPORTS)) {
      const spec = m[1] ?? m[2] ?? m[3] ?? '';
      if (spec.startsWith('.')) {
        const target = localFile(f, spec);
        if (target && !files.has(target) && !target.split(sep).includes('node_modules')) {
          files.add(target);
          todo.push(target);
        }
      } else if (spec && !spec.startsWith('node:')) {
        const parts = spec.split('/');
        packages.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? spec));
      }
    }
  }
  return { files: [...files], packages: [...packages] };
}
