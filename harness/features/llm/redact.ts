/**
 * Keeps secrets out of everything oneway writes. Error messages from model
 * servers may echo the key (OpenAI's 401 names its last characters), and an
 * error message ends up in `results.json` and the run record.
 */

/**
 * Replaces each secret, and anything shaped like an API key or a bearer token, with `[redacted]`.
 *
 * @example
 * redact('Incorrect API key provided: sk-abc123456789', ['sk-abc123456789']) // 'Incorrect API key provided: [redacted]'
 */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  return out
    .replace(/\b(sk|rk|pk)-[A-Za-z0-9_*-]{6,}/g, '[redacted]')
    .replace(/\bBearer\s+[^\s"',]+/gi, 'Bearer [redacted]');
}
