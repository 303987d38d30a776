/**
 * Secrets never reach records, results, reports or cassettes. Every file
 * oneway writes passes through `redact`, which replaces the values of
 * secret-looking environment variables (and any value registered by a planner,
 * such as an API key given as an option) with a marker naming the variable.
 * A secret is found as written and in the forms files hold text in: escaped
 * for a JSON string (once, or twice when JSON sits in a JSON string), for HTML
 * text and attributes, and for JSON inside a `<script>` element; so a key with
 * `"` or `\` in it is found in a record and in report.html too. It is also found
 * encoded the ways a planner could smuggle it into tool arguments: base64
 * (standard and URL-safe, padded or not, and inside a longer base64 text at any
 * byte offset), hex (either case), URL-encoded (as encodeURIComponent writes it,
 * with lower-case escapes, or as a form field) and reversed.
 *
 * @example
 * redact('Bearer sk-live-123456789') // 'Bearer [redacted:OPENAI_API_KEY]' when OPENAI_API_KEY=sk-live-123456789
 */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION)/i;
/** Shorter values are too likely to occur by chance (and too weak to be real keys). */
const MIN_LENGTH = 8;
/** The most text a redacting stream holds back. */
const STREAM_HOLD_MAX = 1024 * 1024;

const registered = new Map<string, string>();
let fromEnv: Map<string, string> | undefined;
/** Every form of every secret, longest first; rebuilt when the secrets change. */
let forms: { form: string; name: string }[] | undefined;

const jsonInner = (s: string) => JSON.stringify(s).slice(1, -1);
const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const htmlText = (s: string) => s.replace(/[&<>"']/g, (c) => HTML[c] ?? c);
// As harness/features/report/html/escape.ts writes JSON into <script>.
const scriptText = (s: string) =>
  s
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/** The forms a text takes in the files oneway writes: as is, JSON-escaped (once, twice), HTML and script escaped. */
function escapedForms(value: string, out: Set<string>): void {
  const json = jsonInner(value);
  for (const f of [value, json, jsonInner(json)]) {
    out.add(f);
    out.add(htmlText(f));
    out.add(scriptText(f));
  }
}

/**
 * The base64 text a secret's bytes give wherever they sit in a longer base64 text: one per byte
 * offset modulo 3, without the characters that also depend on the bytes around it. Each is the
 * same in standard and URL-safe base64 but for `+/`, so both are given.
 */
function base64Forms(bytes: Buffer): string[] {
  const out: string[] = [];
  // Characters of the first group that also hold bytes before the secret, by its offset in the group.
  const lead = [0, 2, 3];
  for (let k = 0; k < 3; k++) {
    const len = k + bytes.length;
    const text = Buffer.concat([Buffer.alloc(k), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    const stable = text.slice(lead[k], Math.floor(len / 3) * 4 + (len % 3));
    out.push(stable, stable.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return out;
}

/**
 * The texts a secret can appear as in a file oneway writes (see the module comment).
 *
 * @example
 * secretForms('a"b') // ['a"b', 'a\\"b', 'a\\\\\\"b', 'a&quot;b', ...]
 */
export function secretForms(value: string): string[] {
  const out = new Set<string>();
  escapedForms(value, out);
  escapedForms([...value].reverse().join(''), out);
  const bytes = Buffer.from(value, 'utf8');
  for (const f of base64Forms(bytes)) out.add(f);
  out.add(bytes.toString('hex'));
  out.add(bytes.toString('hex').toUpperCase());
  const url = encodeURIComponent(value);
  out.add(url);
  out.add(url.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()));
  // As a form (application/x-www-form-urlencoded, URLSearchParams): `+` for spaces, `~!'()*` escaped too.
  out.add(new URLSearchParams({ s: value }).toString().slice(2));
  // Shorter than a secret is (a base64 text shortened by its edges): too likely to occur by chance.
  return [...out].filter((f) => f.length >= MIN_LENGTH - 1);
}

function allForms(): { form: string; name: string }[] {
  if (!forms) {
    const list: { form: string; name: string }[] = [];
    for (const [value, name] of [...envSecrets(), ...registered])
      for (const form of secretForms(value)) list.push({ form, name });
    // Longest first, so a secret containing another is replaced whole.
    forms = list.sort((a, b) => b.form.length - a.form.length);
  }
  return forms;
}

/** The longest text a secret can appear as (0 without secrets): how much a stream must hold back. */
function longestSecretForm(): number {
  return allForms()[0]?.form.length ?? 0;
}

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
  if (value && value.length >= MIN_LENGTH) {
    registered.set(value, name);
    forms = undefined;
  }
}

/** For tests: forget what was read from the environment, so a changed env is read again. */
export function resetSecrets(): void {
  fromEnv = undefined;
  forms = undefined;
  registered.clear();
}

export function redact(text: string): string {
  let out = text;
  for (const { form, name } of allForms()) {
    if (out.includes(form)) out = out.split(form).join(`[redacted:${name}]`);
  }
  return out;
}

/**
 * Redacts a stream of text written piece by piece (an agent's output): `write` each piece,
 * `end` once. What might be the start of a secret is held back until the next piece shows
 * whether it is one; nothing of a secret is ever passed on.
 *
 * @example
 * const r = redactingStream((t) => fs.writeSync(fd, t));
 * child.stdout.on('data', (d) => r.write(String(d)));
 */
export function redactingStream(out: (text: string) => void): { write(text: string): void; end(): void } {
  let held = '';
  return {
    write(text) {
      held += text;
      const keep = longestSecretForm() - 1;
      if (keep < 0) {
        out(held);
        held = '';
        return;
      }
      // Pass on all but the last `keep` characters, and not through the middle of a secret.
      let cut = held.length - keep;
      for (let moved = true; moved && cut > 0;) {
        moved = false;
        for (const { form } of allForms()) {
          for (
            let at = held.indexOf(form, Math.max(0, cut - form.length + 1));
            at !== -1 && at < cut;
            at = held.indexOf(form, at + 1)
          ) {
            if (at + form.length > cut) {
              cut = at;
              moved = true;
            }
          }
        }
      }
      // Only a secret that overlaps itself ("aaaaaaaa") can hold everything back: not past a bound.
      if (cut <= 0 && held.length > STREAM_HOLD_MAX) cut = held.length - keep;
      if (cut <= 0) return;
      out(redact(held.slice(0, cut)));
      held = held.slice(cut);
    },
    end() {
      if (held) out(redact(held));
      held = '';
    },
  };
}
