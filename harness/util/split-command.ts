/**
 * A command line given as one string (`--server-cmd="npx -y @modelcontextprotocol/server-memory"`)
 * split into its words as a POSIX shell splits a simple command, without a shell: whitespace
 * separates words; single quotes keep everything; double quotes keep everything but `\"`, `\\`,
 * `\$` and `` \` ``; a backslash outside quotes keeps the next character. Nothing is expanded, so
 * what a shell would expand or run (`$VAR`, `$(...)`, a backtick, `|`, `;`, `&`, `<`, `>`, a
 * glob, `~`, a leading `NAME=value`) is refused with a hint rather than passed on as text.
 */
/** Why a command line cannot be split, and what to write instead. */
interface SplitProblem {
  message: string;
  hint: string;
}

/** The words, or the problem (the shape of core's `Result`; util imports nothing of core). */
type Split = { ok: true; value: string[] } | ({ ok: false } & SplitProblem);

const NO_SHELL =
  "the command is started without a shell: quote the character to pass it as it is, or run a shell yourself, e.g. sh -c '...'";

/**
 * The words of a command line, or why it has none that can be run as written.
 *
 * @example
 * splitCommand(`npx -y "@scope/my server" --root='/a b'`) // { ok: true, value: ['npx', '-y', '@scope/my server', '--root=/a b'] }
 * splitCommand('node server.js | tee log') // { ok: false, message: 'an unquoted "|" ...', hint: ... }
 */
export function splitCommand(line: string): Split {
  const words: string[] = [];
  let word = '';
  let started = false;
  let quote: "'" | '"' | undefined;
  const fail = (message: string, hint = NO_SHELL): Split => ({ ok: false, message, hint });
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else word += ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string)) word += line[++i];
      else if (ch === '$' || ch === '`')
        return fail(`an unquoted "${ch}" inside double quotes would be expanded by a shell`);
      else word += ch;
      continue;
    }
    if (/\s/.test(ch)) {
      if (started) words.push(word);
      word = '';
      started = false;
      continue;
    }
    started = true;
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '\\') {
      if (i + 1 >= line.length) return fail('the command ends with a backslash', 'remove it, or quote it');
      word += line[++i];
    } else if ('|&;<>()$`*?[{}'.includes(ch) || ((ch === '~' || ch === '#') && word === '')) {
      return fail(`an unquoted "${ch}" is shell syntax, and no shell runs this command`);
    } else word += ch;
  }
  if (quote) return fail(`a ${quote === "'" ? 'single' : 'double'} quote is not closed`, 'close it, or escape it');
  if (started) words.push(word);
  if (words.length === 0)
    return fail('the command is empty', 'e.g. --server-cmd="npx -y @modelcontextprotocol/server-memory"');
  const first = words[0] as string;
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first))
    return fail(
      `"${first}" sets an environment variable, which only a shell does`,
      'set it in the environment the guard starts in (an mcpServers entry has "env": {...}); the server gets the same',
    );
  return { ok: true, value: words };
}
