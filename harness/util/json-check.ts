/**
 * Whether a file is one JSON text, checked as its bytes are read, without building the value:
 * keeping a previous results.json as `.prev` (harness/engine/results/write.ts) must know the file is
 * whole, and parsing a large one for that (15 MB at 8,000 runs) took some 30 MiB for a moment, more
 * than the rest of an evaluation that wrote into the same directory again.
 *
 * The answer is JSON.parse's on the file read as UTF-8 text, whatever the bytes: the grammar is
 * ASCII, a byte of 128 or more is only ever allowed inside a string, and a malformed UTF-8
 * sequence there only becomes U+FFFD. The members of the top-level object are kept as what their
 * values begin with (`{`, `[`, `"`, `t`, `f`, `n`) or, for a number, its text; a repeated key keeps
 * its last value, as JSON.parse does.
 */
import { closeSync, openSync, readSync } from 'node:fs';

const S = {
  /** A value is expected (after `:`, at the start, after `,` in an array). */
  Value: 0,
  /** After `[`: a value or `]`. */
  ValueOrClose: 1,
  /** After `{`: a key or `}`. */
  KeyOrClose: 2,
  /** After `,` in an object: a key. */
  Key: 3,
  /** After a key: `:`. */
  Colon: 4,
  /** After a value: `,`, the container's close, or the end of the text. */
  After: 5,
  String: 6,
  Escape: 7,
  Unicode: 8,
  Number: 9,
  Literal: 10,
} as const;
type S = (typeof S)[keyof typeof S];

const WS = new Uint8Array(128);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) WS[c] = 1;
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;
const isHex = (b: number) => isDigit(b) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);

/** Number states: where in `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` the text is. */
const N = {
  Start: 0,
  Sign: 1,
  Zero: 2,
  Int: 3,
  Dot: 4,
  Frac: 5,
  E: 6,
  ESign: 7,
  Exp: 8,
} as const;
type N = (typeof N)[keyof typeof N];
/** Number states a number may end in. */
const NUMBER_ENDS = new Set<N>([N.Zero, N.Int, N.Frac, N.Exp]);

export class JsonCheck {
  private state: S = S.Value;
  private failed = false;
  /** Open containers: `{` or `[` (as their byte). */
  private readonly stack: number[] = [];
  private isKey = false;
  private hexLeft = 0;
  private num: N = N.Start;
  private literal = '';
  private literalAt = 0;
  /** The text of the top-level member's key or number being read (only at depth 1). */
  private token = '';
  private key = '';
  /** The top-level object's members: what each value begins with, or a number's text. */
  readonly top = new Map<string, string>();

  /** Feeds the next bytes; false once the text cannot be JSON. */
  write(chunk: Uint8Array): boolean {
    for (let i = 0; i < chunk.length && !this.failed; i++) {
      // Most of a file is inside strings: their plain bytes are passed over in a tight loop.
      if (this.state === S.String && !(this.isKey && this.depth === 1)) {
        while (i < chunk.length) {
          const b = chunk[i] as number;
          if (b === 0x22 || b === 0x5c || b < 0x20) break;
          i++;
        }
        if (i === chunk.length) break;
      }
      this.byte(chunk[i] as number);
    }
    return !this.failed;
  }

  /** Whether the bytes fed were exactly one JSON text. */
  end(): boolean {
    if (this.failed) return false;
    if (this.state === S.Number) {
      if (!NUMBER_ENDS.has(this.num)) return false;
      this.valueEnded();
    }
    return this.state === S.After && this.stack.length === 0;
  }

  private fail(): void {
    this.failed = true;
  }

  /** Depth of the value being read: 1 for the top-level object's members. */
  private get depth(): number {
    return this.stack.length;
  }

  private byte(b: number): void {
    switch (this.state) {
      case S.String:
        return this.stringByte(b);
      case S.Escape:
        if (b === 0x75) {
          this.hexLeft = 4;
          this.state = S.Unicode;
        } else if ('"\\/bfnrt'.includes(String.fromCharCode(b))) this.state = S.String;
        else return this.fail();
        return this.keep(b);
      case S.Unicode:
        if (!isHex(b)) return this.fail();
        this.keep(b);
        if (--this.hexLeft === 0) this.state = S.String;
        return;
      case S.Number:
        if (this.numberByte(b)) return this.keep(b);
        if (!NUMBER_ENDS.has(this.num)) return this.fail();
        this.valueEnded();
        return this.byte(b);
      case S.Literal:
        if (b !== this.literal.charCodeAt(this.literalAt)) return this.fail();
        if (++this.literalAt === this.literal.length) this.valueEnded();
        return;
    }
    if (b < 128 && WS[b]) return;
    switch (this.state) {
      case S.Value:
        return this.valueStart(b);
      case S.ValueOrClose:
        if (b === 0x5d) return this.close(0x5b);
        return this.valueStart(b);
      case S.KeyOrClose:
        if (b === 0x7d) return this.close(0x7b);
        return this.keyStart(b);
      case S.Key:
        return this.keyStart(b);
      case S.Colon:
        if (b !== 0x3a) return this.fail();
        this.state = S.Value;
        return;
      case S.After: {
        const open = this.stack[this.stack.length - 1];
        if (open === undefined) return this.fail(); // something after the top-level value
        if (b === 0x2c) this.state = open === 0x7b ? S.Key : S.Value;
        else if (b === 0x7d || b === 0x5d) this.close(b === 0x7d ? 0x7b : 0x5b);
        else this.fail();
        return;
      }
    }
  }

  private valueStart(b: number): void {
    if (this.depth === 1 && this.stack[0] === 0x7b && b !== 0x2d && !isDigit(b))
      this.top.set(this.key, String.fromCharCode(b));
    if (b === 0x7b || b === 0x5b) {
      this.stack.push(b);
      this.state = b === 0x7b ? S.KeyOrClose : S.ValueOrClose;
    } else if (b === 0x22) {
      this.isKey = false;
      this.state = S.String;
    } else if (b === 0x2d || isDigit(b)) {
      this.num = N.Start;
      this.token = '';
      this.state = S.Number;
      if (!this.numberByte(b)) this.fail();
      else this.keep(b);
    } else if (b === 0x74 || b === 0x66 || b === 0x6e) {
      this.literal = b === 0x74 ? 'true' : b === 0x66 ? 'false' : 'null';
      this.literalAt = 1;
      this.state = S.Literal;
    } else this.fail();
  }

  private keyStart(b: number): void {
    if (b !== 0x22) return this.fail();
    this.isKey = true;
    this.token = '';
    this.state = S.String;
  }

  private stringByte(b: number): void {
    if (b === 0x22) {
      if (this.isKey) {
        if (this.depth === 1) this.key = JSON.parse(`"${this.token}"`) as string;
        this.state = S.Colon;
      } else this.valueEnded();
      return;
    }
    if (b < 0x20) return this.fail();
    if (b === 0x5c) this.state = S.Escape;
    // A top-level key's bytes are kept to decode it (any other string is only checked). The keys
    // looked for are ASCII: a byte of a multi-byte character only has to stay unlike them.
    if (this.isKey && this.depth === 1) this.token += b < 128 ? String.fromCharCode(b) : '\ufffd';
  }

  /** Keeps a byte of a top-level key's escape, or of a top-level member's number. */
  private keep(b: number): void {
    if (this.depth === 1 && (this.isKey || this.state === S.Number)) this.token += String.fromCharCode(b);
  }

  private numberByte(b: number): boolean {
    const digit = isDigit(b);
    switch (this.num) {
      case N.Start:
      case N.Sign:
        if (b === 0x2d && this.num === N.Start) return ((this.num = N.Sign), true);
        if (b === 0x30) return ((this.num = N.Zero), true);
        if (digit) return ((this.num = N.Int), true);
        return false;
      case N.Zero:
      case N.Int:
        if (digit && this.num === N.Int) return true;
        if (b === 0x2e) return ((this.num = N.Dot), true);
        if (b === 0x65 || b === 0x45) return ((this.num = N.E), true);
        return false;
      case N.Dot:
      case N.Frac:
        if (digit) return ((this.num = N.Frac), true);
        if (this.num === N.Frac && (b === 0x65 || b === 0x45)) return ((this.num = N.E), true);
        return false;
      case N.E:
        if (b === 0x2b || b === 0x2d) return ((this.num = N.ESign), true);
        if (digit) return ((this.num = N.Exp), true);
        return false;
      case N.ESign:
      case N.Exp:
        if (digit) return ((this.num = N.Exp), true);
        return false;
    }
  }

  private valueEnded(): void {
    if (this.state === S.Number && this.depth === 1 && this.stack[0] === 0x7b) this.top.set(this.key, this.token);
    this.state = S.After;
  }

  private close(open: number): void {
    if (this.stack.pop() !== open) return this.fail();
    this.valueEnded();
  }
}

/**
 * Reads a file through a JsonCheck, 64 KiB at a time: the check, or undefined when the file
 * cannot be read. Stops at the first byte that cannot be JSON.
 */
export function checkJsonFile(path: string): JsonCheck | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const check = new JsonCheck();
    const buf = Buffer.alloc(64 * 1024);
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) if (!check.write(buf.subarray(0, n))) break;
    return check;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
