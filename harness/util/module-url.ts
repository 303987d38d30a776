/**
 * The URL of one of oneway's own modules next to the caller, for worker threads: `.ts` when
 * oneway runs from source (tsx, the repository's scripts and tests), `.js` when it runs compiled
 * from dist/ (an installed package, where no TypeScript loader is needed).
 *
 * @example
 * const entry = ownModule('./worker-main', import.meta.url); // .../worker-main.ts or .../worker-main.js
 */
export function ownModule(relativePath: string, base: string): URL {
  return new URL(`${relativePath}${/\.ts$/.test(new URL(base).pathname) ? '.ts' : '.js'}`, base);
}

/** The extension of oneway's own modules here: `.ts` from source, `.js` compiled. */
export function ownExtension(base: string): '.ts' | '.js' {
  return /\.ts$/.test(new URL(base).pathname) ? '.ts' : '.js';
}
