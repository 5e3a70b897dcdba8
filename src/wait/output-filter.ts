/**
 * Could this batch of a pane's output have written a line that a wait is looking for?
 *
 * `pane.wait_for_output` checks the pane's recent rows after a quiet moment and at most every
 * 100 ms while output flows (src/actions/pane-io.ts); a flood scrolls thousands of rows past in
 * that time. Reading rows back as text costs ~10 µs a row (xterm parses one in ~1.3 µs), so
 * reading every row a flood writes would make a wait cost the server more than the flood. So
 * each batch is looked at in its bytes as it arrives (a native search, no text built); when a
 * batch may have printed a matching line, the wait reads the rows that batch wrote right after
 * it is parsed, while they are still stored. A false "maybe" costs one read of a screenful of
 * rows; a false "no" would lose a match. So whatever a batch does that this filter cannot
 * follow — cursor movement, scrolling sequences, backspace, a carriage return that is not a
 * line end, a line feed without one (raw mode), character-set shifts — answers "maybe", and
 * leaves the filter `lost` (every batch a "maybe": the cursor may now write over old rows)
 * until the wait sees the cursor appending to its line again, with blank rows below
 * (`appendingLine`). A full-screen app keeps it lost, and costs what a look per batch costs;
 * a shell or a `cat` at the bottom of the screen costs a few native searches per batch
 * (45 MB of coloured text: ~65 ms; reading the rows as text instead: seconds).
 *
 * What is followed: a line's text is the stream's bytes between line ends, less SGR and
 * erase-to-end-of-line sequences, OSC/DCS/APC/PM/SOS strings (titles, hyperlinks), NUL, BEL
 * and DEL, which print nothing; a tab prints spaces; a soft wrap adds nothing to the logical
 * line; trailing blanks are trimmed. A line may be written over several batches: the
 * unfinished line is carried into the next batch's look.
 */
import { compilePaneLinesTest } from '../terminal/pane-regex.js';

const ESC = 0x1b;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;

const NO = 0;
const MAYBE = 1;
const LOST = 2;

/** An unfinished line longer than this (bytes) is a "maybe" instead of being carried. */
export const MAX_CARRY = 64 * 1024;

export interface OutputFilter {
  /** True when `data`, with the batches before it, may have printed a line that matches (the caller then reads the rows it wrote). */
  mayMatch(data: string | Uint8Array): boolean;
  /**
   * Set once a batch did something the filter cannot follow (a cursor move, …): from then on
   * every batch is a "maybe" — the cursor may be anywhere, writing over old rows — until
   * `reseed` says where output goes on.
   */
  readonly lost: boolean;
  /** Output goes on by appending to a line that now reads `line` (see `appendingLine`), with blank rows below. */
  reseed(line: string): void;
}

/** What `appendingLine` needs of a pane's terminal (PaneTerminal). */
export interface CursorView {
  readonly rows: number;
  readonly scrollback: {
    readonly baseY: number;
    readonly cursorX: number;
    readonly cursorY: number;
    getLine(y: number): { readonly isWrapped: boolean; translateToString(trimRight?: boolean, start?: number, end?: number): string } | undefined;
  };
  readonly xterm: { readonly modes: { readonly insertMode: boolean; readonly wraparoundMode: boolean } };
}

/**
 * The text of the cursor's row up to the cursor, when output from here on can only append to
 * it and then to blank rows — what the filter follows: the cursor's row is not a continuation
 * (the line started on it), nothing is written after the cursor, every row below is blank,
 * and characters are neither inserted nor written over at the margin. Else null.
 */
export function appendingLine(t: CursorView): string | null {
  if (t.xterm.modes.insertMode || !t.xterm.modes.wraparoundMode) return null;
  const b = t.scrollback;
  const row = b.getLine(b.baseY + b.cursorY);
  if (!row || row.isWrapped || row.translateToString(true, b.cursorX) !== '') return null;
  for (let y = b.cursorY + 1; y < t.rows; y++) if ((b.getLine(b.baseY + y)?.translateToString(true) ?? '') !== '') return null;
  return row.translateToString(false, 0, b.cursorX);
}

/** Skips bytes that print nothing; -1 runs off the end; -2 cannot be followed (moves the cursor, …). */
export function escapeEnd(buf: Uint8Array, j: number): number {
  if (j + 1 >= buf.length) return -1;
  const kind = buf[j + 1]!;
  if (kind === 0x5b /* [ CSI */) {
    let k = j + 2;
    while (k < buf.length && buf[k]! >= 0x20 && buf[k]! <= 0x3f) k++;
    if (k >= buf.length) return -1;
    const final = buf[k]!;
    // SGR (colours) and erase to the end of the line print nothing and leave the cursor.
    if (final === 0x6d /* m */ || final === 0x4b /* K */) return k + 1;
    return -2;
  }
  if (kind === 0x5d /* ] OSC */ || kind === 0x50 /* P DCS */ || kind === 0x5f /* _ APC */ || kind === 0x5e /* ^ PM */ || kind === 0x58 /* X SOS */) {
    // A string ended by BEL (OSC) or ST (ESC \).
    for (let k = j + 2; k < buf.length; k++) {
      if (buf[k] === 0x07 && kind === 0x5d) return k + 1;
      if (buf[k] === ESC) {
        if (k + 1 >= buf.length) return -1;
        if (buf[k + 1] === 0x5c) return k + 2;
      }
    }
    return -1;
  }
  // ESC 8 restores the cursor, ESC D/E/M move it, ESC ( 0 draws lines with letters, …
  return -2;
}

/**
 * Whether `buf` does something that puts text on a line other than in stream order, or that
 * this cannot follow. `lineStarts`: also a line feed without a carriage return (raw mode),
 * which starts the next line at the current column, i.e. after blanks — only patterns that
 * look at leading blanks care. Each check is a native search hopping from hit to hit, not a
 * loop over every byte in JavaScript. Escape sequences are checked by the caller as it hops
 * over them (SubstringFilter.test).
 */
function unfollowableControls(buf: Buffer, lineStarts: boolean): boolean {
  // Backspace, Shift Out/In.
  if (buf.indexOf(0x08) !== -1 || buf.indexOf(0x0e) !== -1 || buf.indexOf(0x0f) !== -1) return true;
  // Line ends are CR LF (the pty's onlcr): a lone CR rewrites the line. A CR that ends the
  // batch is left for the next look (the line is carried).
  for (let k = buf.indexOf(CR); k !== -1; k = buf.indexOf(CR, k + 2)) {
    if (k + 1 < buf.length && buf[k + 1] !== LF) return true;
  }
  if (lineStarts) {
    for (let k = buf.indexOf(LF); k !== -1; k = buf.indexOf(LF, k + 1)) if (k === 0 || buf[k - 1] !== CR) return true;
  }
  return false;
}

/**
 * Looks at output line by line: `test` gets the bytes of one or more whole lines, plus the
 * unfinished one, and says whether one of them may match.
 */
abstract class LineFilter implements OutputFilter {
  /**
   * The unfinished line so far (its bytes, as they came): `carry[0 … carryLength)`. It and the
   * seam below live in buffers reused from batch to batch: a flood is ~10,000 batches.
   */
  private carry: Buffer = Buffer.allocUnsafe(0);
  private carryLength = 0;
  private seamBytes: Buffer = Buffer.allocUnsafe(0);
  private _lost = false;
  /** The last batch ended inside an escape sequence or a UTF-8 character. */
  private endsInside = false;

  constructor(seed: string | null) {
    if (seed) this.setCarry(Buffer.from(seed, 'utf8'));
    this._lost = seed === null;
  }

  get lost(): boolean {
    return this._lost;
  }

  reseed(line: string): void {
    // The terminal is inside a sequence or a character the last batch began: what comes next
    // cannot be read as text from here (the next batch will likely end clean).
    if (this.endsInside) return;
    this._lost = false;
    this.carryLength = 0;
    if (line !== '') this.setCarry(Buffer.from(line, 'utf8'));
  }

  mayMatch(data: string | Uint8Array): boolean {
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (buf.length === 0) return this._lost;
    const lastEsc = buf.lastIndexOf(ESC);
    this.endsInside = (lastEsc !== -1 && escapeEnd(buf, lastEsc) === -1) || completeLength(buf) < buf.length;
    if (this._lost) return true;
    const firstLf = buf.indexOf(LF);
    const lastLf = firstLf === -1 ? -1 : buf.lastIndexOf(LF);
    // The carried line and this batch's part of it, joined: a line's bytes, not the batch's.
    let seam: Buffer | null = null;
    if (this.carryLength > 0) {
      const head = firstLf === -1 ? buf.length : firstLf + 1;
      this.seamBytes = room(this.seamBytes, this.carryLength + head);
      this.carry.copy(this.seamBytes, 0, 0, this.carryLength);
      buf.copy(this.seamBytes, this.carryLength, 0, head);
      seam = this.seamBytes.subarray(0, this.carryLength + head);
    }
    const rest = seam ? (firstLf === -1 ? null : buf.subarray(firstLf + 1)) : buf;
    // The unfinished line is carried with the line end before it (CR LF, or a lone LF, which
    // starts the line after blanks: the next look must see it again). Past the limit it is
    // dropped and the answer is "maybe".
    const unfinishedLength = lastLf === -1 ? (seam ?? buf).length : lastLf > 0 ? buf.length - lastLf + 1 : seam ? buf.length + 1 : buf.length;
    this.carryLength = 0;
    if (unfinishedLength > MAX_CARRY) return (this._lost = true);
    if (lastLf === -1) this.setCarry(seam ?? buf);
    else if (lastLf > 0) this.setCarry(buf.subarray(lastLf - 1));
    else if (seam) this.setCarry(seam.subarray(seam.length - 2), buf.subarray(1));
    else this.setCarry(buf);
    const verdict = Math.max(seam ? this.test(seam) : NO, rest !== null && rest.length > 0 ? this.test(rest) : NO);
    if (verdict === LOST) this._lost = true;
    return verdict !== NO;
  }

  /** Copies `a` then `b` into the carry (the pty's buffer is not ours to keep). */
  private setCarry(a: Buffer, b?: Buffer): void {
    const n = a.length + (b?.length ?? 0);
    this.carry = room(this.carry, n);
    a.copy(this.carry, 0);
    b?.copy(this.carry, a.length);
    this.carryLength = n;
  }

  /** Whether some line in `buf` (whole lines and the unfinished one, as they came) may match: NO, MAYBE, or LOST (cannot follow). */
  protected abstract test(buf: Buffer): number;
}

/**
 * A substring, searched for in the bytes as they came: the needle is either there in one
 * piece (one native search), or split by something that prints nothing — and then the part
 * before the first split ends right before that escape sequence (or tab). So the only places
 * to look closer are the bytes just before each escape sequence, which the followability
 * check hops over anyway: no copy of the text, no loop over every byte.
 */
export class SubstringFilter extends LineFilter {
  private readonly needle: Buffer;
  private readonly lineStarts: boolean;
  /** Bytes that occur in the needle. */
  private readonly inNeedle = new Uint8Array(256);

  constructor(text: string, seed: string | null) {
    super(seed);
    this.needle = Buffer.from(text, 'utf8');
    this.lineStarts = text.startsWith(' ');
    for (const b of this.needle) this.inNeedle[b] = 1;
  }

  protected test(buf: Buffer): number {
    const needle = this.needle;
    if (needle.length === 0) return MAYBE;
    if (unfollowableControls(buf, this.lineStarts)) return LOST;
    let verdict = buf.indexOf(needle) !== -1 ? MAYBE : NO;
    for (let k = buf.indexOf(ESC); k !== -1; ) {
      const end = escapeEnd(buf, k);
      if (end === -2) return LOST;
      if (verdict === NO && this.straddles(buf, k)) verdict = MAYBE;
      // A sequence cut by the batch's end runs to it: looked at again with the next batch.
      if (end === -1) break;
      k = buf.indexOf(ESC, end);
    }
    if (verdict !== NO) return verdict;
    // NUL, BEL and DEL print nothing (rare outside sequences: "maybe" rather than following them).
    if (buf.indexOf(0x00) !== -1 || buf.indexOf(0x07) !== -1 || buf.indexOf(0x7f) !== -1) return MAYBE;
    if (this.needle.includes(SPACE)) {
      // A tab prints one to eight spaces: the needle may start at one, or run through one.
      for (let k = buf.indexOf(TAB); k !== -1; k = buf.indexOf(TAB, k + 1)) {
        if (this.straddles(buf, k) || this.matchAt(buf, k)) return MAYBE;
      }
    }
    return NO;
  }

  /** Whether the needle starts in the bytes just before `k` and prints on through it. */
  private straddles(buf: Buffer, k: number): boolean {
    if (k === 0 || this.inNeedle[buf[k - 1]!] === 0) return false;
    const first = this.needle[0]!;
    for (let back = 1; back < this.needle.length && back <= k; back++) {
      if (buf[k - back] === first && this.matchAt(buf, k - back)) return true;
    }
    return false;
  }

  /** Whether the needle prints from `p` on (running off the end is "no": the next batch looks again). */
  private matchAt(buf: Buffer, p: number): boolean {
    const needle = this.needle;
    let i = 0;
    let j = p;
    while (i < needle.length) {
      if (j >= buf.length) return false;
      const b = buf[j]!;
      if (b === needle[i]) {
        i++;
        j++;
      } else if (b === ESC) {
        const end = escapeEnd(buf, j);
        if (end < 0) return end === -2;
        j = end;
      } else if (b === TAB && needle[i] === SPACE) {
        while (i < needle.length && needle[i] === SPACE) i++;
        j++;
      } else if (b === 0x00 || b === 0x07 || b === 0x7f) {
        j++;
      } else {
        return false;
      }
    }
    return true;
  }
}

/** The lines' text rebuilt (LF-separated, trailing blanks trimmed as reads trim them) for a multi-line regex. */
export class RegexFilter extends LineFilter {
  /** Reused for the rebuilt text (no garbage per batch). */
  private scratch = Buffer.allocUnsafe(0);
  private readonly literal: Buffer | null;

  /** `literal`: text every match holds (`requiredLiteral`), for a native look before the rebuild. */
  constructor(private readonly linesTest: (bytes: Buffer) => boolean, seed: string | null, literal: string | null = null) {
    super(seed);
    this.literal = literal ? Buffer.from(literal, 'utf8') : null;
  }

  protected test(buf: Buffer): number {
    if (unfollowableControls(buf, true)) return LOST;
    // A tab prints one to eight spaces: which, the regex may care.
    if (buf.indexOf(TAB) !== -1) return MAYBE;
    // Rebuilding the text below is a loop over every byte in JavaScript (a 61 MB flood awaited
    // with `--regex ^MARK`: ~40–60 ms of the server's time, issue 45). When nothing in the batch
    // prints nothing (no escape sequence, NUL, BEL or DEL), the rebuild only drops the CR of
    // each CR LF and a line's trailing blanks, which joins no bytes: a literal the batch lacks,
    // no rebuilt line holds, and a pattern that needs it cannot match.
    if (this.literal && buf.indexOf(this.literal) === -1 && buf.indexOf(ESC) === -1 && buf.indexOf(0x00) === -1 && buf.indexOf(0x07) === -1 && buf.indexOf(0x7f) === -1) return NO;
    if (this.scratch.length < buf.length) this.scratch = Buffer.allocUnsafe(Math.max(buf.length, 2 * this.scratch.length, 4096));
    const out = this.scratch;
    let n = 0;
    /** Where the current line's trailing spaces began (trimmed like a read trims them). */
    let blanksFrom = -1;
    for (let j = 0, length = completeLength(buf); j < length; ) {
      const b = buf[j]!;
      if (b === ESC) {
        const end = escapeEnd(buf, j);
        if (end === -2) return LOST;
        if (end === -1) break; // cut by the batch's end: looked at again with the next batch
        j = end;
        continue;
      }
      j++;
      if (b === CR || b === 0x00 || b === 0x07 || b === 0x7f) continue;
      if (b === LF) {
        if (blanksFrom !== -1) n = blanksFrom;
        blanksFrom = -1;
      } else if (b === SPACE) {
        if (blanksFrom === -1) blanksFrom = n;
      } else blanksFrom = -1;
      out[n++] = b;
    }
    if (blanksFrom !== -1) n = blanksFrom;
    return this.linesTest(out.subarray(0, n)) ? MAYBE : NO;
  }
}

/** `buf` if it holds `n` bytes, else a larger buffer (contents not kept). */
function room(buf: Buffer, n: number): Buffer {
  return buf.length >= n ? buf : Buffer.allocUnsafe(Math.max(n, 2 * buf.length, 256));
}

/** `buf`'s length less a UTF-8 character cut by its end, which is not on the line yet (`x$` matches until it is). */
function completeLength(buf: Buffer): number {
  let start = buf.length;
  while (start > 0 && buf.length - start < 3 && (buf[start - 1]! & 0xc0) === 0x80) start--;
  if (start === 0) return buf.length;
  const lead = buf[start - 1]!;
  if (lead < 0xc0) return buf.length;
  const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  return buf.length - (start - 1) < size ? start - 1 : buf.length;
}

/** Every batch is a "maybe": for patterns that cannot be tested on joined lines. */
const ALWAYS: OutputFilter = { mayMatch: () => true, lost: true, reseed: () => {} };

/**
 * The filter for a wait's match. `seed`: the text of the line output goes on appending to
 * (`appendingLine`), or null when that is not known (the filter starts lost).
 */
export function outputFilter(match: { type: 'substring' | 'regex'; value: string }, seed: string | null): OutputFilter {
  if (match.type === 'substring') return new SubstringFilter(match.value, seed);
  const linesTest = compilePaneLinesTest(match.value);
  return linesTest ? new RegexFilter(linesTest, seed, requiredLiteral(match.value)) : ALWAYS;
}

/** Characters that stand for themselves in RE2 outside a class (and are not `|`). */
const LITERAL_CHAR = /[A-Za-z0-9_\-:=,@#%/ ]/;

/**
 * Text that every match of the RE2 `source` holds, or null when that is not plain to see: the
 * run of literal characters the pattern starts with (after a `^`), less its last character when
 * a quantifier that allows none of it (`?`, `*`, `{`, and `+` to be safe) follows. Only for
 * patterns without `|` (an alternative may lack the run) and at least two characters long.
 * `^MARK-7` → `MARK-7`; `^MARK?` → `MAR`; `(?i)x`, `a|b`, `.*x`, `\d+` → null.
 */
export function requiredLiteral(source: string): string | null {
  if (source.includes('|')) return null;
  let at = source.startsWith('^') ? 1 : 0;
  const start = at;
  while (at < source.length && LITERAL_CHAR.test(source[at]!)) at++;
  let end = at;
  if (at < source.length && '?*{+'.includes(source[at]!)) end--;
  return end - start >= 2 ? source.slice(start, end) : null;
}
