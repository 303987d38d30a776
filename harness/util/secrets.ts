/**
 * Secrets never reach records, results, reports or cassettes. Every file
 * oneway writes passes through `redact`, which replaces the values of
 * secret-looking environment variables (and any value registered by a planner,
 * such as an API key given as an option) with a marker naming the variable.
 *
 * @example
 * redact('Bearer sk-live-123456789') // 'Bearer [redacted:OPENAI_API_KEY]' when OPENAI_API_KEY=sk-live-123456789
 */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION)/i;
/** Shorter values are too likely to occur by chance (and too weak to be real keys). */
const MIN_LENGTH = 8;

const registered = new Map<string, string>();
let fromEnv: Map<string, string> | undefined;

function envSecrets(): Map<string, string> {
  if (!fromEnv) {
    fromEnv = new Map();
    for (const [name, value] of Object.entries(process.env)) {
      if (value && value.length >= MIN_LENGTH && SECRET_NAME.test(name)) fromEnv.set(value, name);
    }
  }
  return fromEnv;
}

/** Marks a value as secret for the rest of the process (e.g. an API key passed as a planner option). */
export function registerSecret(value: string | undefined, name = 'secret'): void {
  if (value && value.length >= MIN_LENGTH) registered.set(value, name);
}

/** For tests: forget what was read from the environment, so a changed env is read again. */
export function resetSecrets(): void {
  fromEnv = undefined;
  registered.clear();
}

export function redact(text: string): string {
  let out = text;
  // Longest first, so a secret containing another is replaced whole.
  const all = [...envSecrets(), ...registered].sort((a, b) => b[0].length - a[0].length);
  for (const [value, name] of all) {
    if (out.includes(value)) out = out.split(value).join(`[redacted:${name}]`);
  }
  return out;
}
