/**
 * The reporters `--reporter=` takes, by name, apart from the reporters themselves (index.ts), so
 * that checking the names loads no renderer: `eval --list` checks its flags and lists scenarios
 * without them.
 */
import { UsageError } from '../../core/errors.ts';
import { suggest } from '../../util/did-you-mean.ts';

/** The reporter names, in the order help texts list them; index.ts has a reporter for each, and for no other. */
export const REPORTERS = ['table', 'json', 'markdown', 'junit', 'github', 'html'] as const;

export type ReporterName = (typeof REPORTERS)[number];

const isReporter = (name: string): name is ReporterName => (REPORTERS as readonly string[]).includes(name);

/** Checks reporter names; an unknown one is a UsageError that lists the valid names. */
export function parseReporters(names: readonly string[]): ReporterName[] {
  return names.map((name) => {
    if (isReporter(name)) return name;
    const near = suggest(name, REPORTERS);
    throw new UsageError(
      `unknown reporter "${name}"`,
      `${near ? `did you mean ${near}? ` : ''}reporters: ${REPORTERS.join(', ')}`,
    );
  });
}

/** Reporters to use: the ones asked for (checked), plus `github` when running in GitHub Actions. */
export function reportersFor(asked: readonly string[], env: NodeJS.ProcessEnv): ReporterName[] {
  const out = parseReporters(asked);
  if (env.GITHUB_ACTIONS === 'true' && !out.includes('github')) out.push('github');
  return out;
}
