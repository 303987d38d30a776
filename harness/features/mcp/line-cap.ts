/**
 * Newline-delimited input with a bound on the line: what the stdio transport
 * reads. A line (a JSON-RPC message) is passed on whole once its newline
 * arrives; one that grows past `maxBytes` without a newline is dropped as it
 * grows (`onOversize` is told once, at that moment, so the client hears why)
 * and the rest of it, up to its newline, is skipped. Nothing is buffered
 * beyond one line of at most `maxBytes`.
 *
 * @example
 * const input = capLines(process.stdin, 4 * 1024 * 1024, (n) => replyError(`line over the limit (${n} bytes)`));
 * new StdioServerTransport(input, process.stdout);
 */
import { Transform, type Readable } from 'node:stream';

export function capLines(input: Readable, maxBytes: number, onOversize: (bytes: number) => void): Readable {
  let pending: Buffer[] = [];
  let size = 0;
  let dropping = false;
  const out = new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      for (let start = 0; start < data.length;) {
        const nl = data.indexOf(10, start);
        const end = nl < 0 ? data.length : nl + 1;
        const piece = data.subarray(start, end);
        start = end;
        if (dropping) {
          if (nl >= 0) dropping = false; // the dropped line ends here
          continue;
        }
        size += piece.length - (nl >= 0 ? 1 : 0);
        if (size > maxBytes) {
          onOversize(size);
          pending = [];
          size = 0;
          dropping = nl < 0;
          continue;
        }
        pending.push(piece);
        if (nl >= 0) {
          this.push(pending.length === 1 ? piece : Buffer.concat(pending));
          pending = [];
          size = 0;
        }
      }
      done();
    },
    flush(done) {
      // A last line without its newline: passed on as it is (the reader decides what it is worth).
      if (!dropping && pending.length > 0) this.push(Buffer.concat(pending));
      done();
    },
  });
  input.pipe(out);
  // An input closed without an end (destroyed) still ends the output.
  input.once('close', () => {
    if (!out.writableEnded) out.end();
  });
  input.once('error', (e) => out.destroy(e));
  return out;
}
