/** Where the oneway package lives: a clone, or node_modules/oneway (code in harness/ from source, dist/harness/ compiled). */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const UP2 = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const PACKAGE_ROOT = existsSync(join(UP2, 'package.json')) ? UP2 : dirname(UP2);

/** The package's version, from its package.json. */
export function packageVersion(): string {
  try {
    return String(
      (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version?: unknown }).version ??
        'unknown',
    );
  } catch {
    return 'unknown';
  }
}
