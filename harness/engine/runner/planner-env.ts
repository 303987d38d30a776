/**
 * `--planner-env`: the environment variables a planner file's process gets. A sealed process
 * (sealed-process.ts) starts with an empty environment; the user names what it may have (an LLM
 * planner file's API key), and it gets this process's values of those names, nothing else.
 */
import { UsageError } from '../../core/errors.ts';

/**
 * Variables no sealed process may be given, whatever `--planner-env` says: they change how the
 * process starts (Node's own options and flags, the dynamic loader's preloads, OpenSSL's engines,
 * a shell's start-up file), which would undo its seal; and the ones the harness sets itself.
 */
const START_UP_ENV = /^(NODE_|LD_|DYLD_|OPENSSL_|BASH_ENV$|ENV$|ONEWAY_SEALED_PROCESS$|TMPDIR$|TMP$|TEMP$)/;

/**
 * The environment a sealed process is given: each of `names` with its value in `env` (the
 * harness's). A name that is not a variable name, is not set, or would change how the process
 * starts is a UsageError (`label` names the setting, e.g. `--planner-env`).
 *
 * @example
 * checkPlannerEnv(['OPENAI_API_KEY'], { OPENAI_API_KEY: 'sk-1', HOME: '/h' }, '--planner-env') // { OPENAI_API_KEY: 'sk-1' }
 */
export function checkPlannerEnv(
  names: readonly string[],
  env: NodeJS.ProcessEnv,
  label: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of names.flatMap((n) => n.split(','))) {
    const name = raw.trim();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new UsageError(
        `${label} takes environment variable names, got ${JSON.stringify(raw)}`,
        'e.g. --planner-env=OPENAI_API_KEY (repeat it, or separate names with commas)',
      );
    if (START_UP_ENV.test(name))
      throw new UsageError(
        `${label} cannot pass ${name}: it changes how a planner's process starts, which would undo its seal`,
        'a planner process gets none of NODE_*, LD_*, DYLD_*, OPENSSL_*, BASH_ENV, ENV, TMPDIR, TMP, TEMP',
      );
    const value = env[name];
    if (value === undefined)
      throw new UsageError(
        `${label} names ${name}, which is not set in oneway's environment`,
        `set ${name} where you run oneway, or leave it out of ${label}`,
      );
    out[name] = value;
  }
  return out;
}
