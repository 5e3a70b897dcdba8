/**
 * The injection fence (SPEC §8): peer terminal output handed to an agent is wrapped in a
 * tag pair with a random id, so a model can tell where untrusted text ends and cannot be
 * tricked by output that prints a closing tag of its own.
 */
import { randomBytes } from 'node:crypto';
import { CorralError } from '../contract/protocol.js';

export const FENCE_TAG = 'untrusted_terminal_output';

/** 8 random bytes = 16 hex chars: unguessable by the output being fenced, short enough to read. */
const FENCE_ID_BYTES = 8;

/** Ids become an attribute value; a closed alphabet keeps the tag well-formed. */
const FENCE_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

export interface FenceOptions {
  surfaceId: number;
  /** The `source` attribute when the text is not one pane's output (`worktree:<name>`); default `surface:<surfaceId>`. */
  source?: string;
  /** Total lines the source holds (not just the ones returned), so the reader knows what is missing. */
  totalLines: number;
  /** Whether the text reaches the end of the source's output. */
  eof: boolean;
  /** Fixed id for tests; random otherwise. */
  id?: string;
}

/** A fresh fence id: 16 random hex characters. */
export function newFenceId(): string {
  return randomBytes(FENCE_ID_BYTES).toString('hex');
}

/**
 * Code points a reader's eye skips: default-ignorable ones (U+034F CGJ, U+FE0F and U+180B
 * variation selectors, U+3164 and U+1160 Hangul fillers, zero-width spaces and joiners, tag
 * characters U+E0000–E007F …) and combining marks. Tested one code point at a time.
 */
const INVISIBLE_RE = /^[\p{Default_Ignorable_Code_Point}\p{Mn}\p{Me}]$/u;
const SPACE_RE = /^\s$/u;
/**
 * Where a look-alike tag can start: a code point whose NFKC form is `<` (`<`, small `﹤`,
 * fullwidth `＜`), then ASCII spaces or `/`, then `u` or anything non-ASCII (a look-alike
 * letter, an invisible character). Only these are examined closely; in real output (code,
 * HTML, `a < b`) almost no `<` qualifies, so the search stays at regex-engine speed. Linear:
 * one quantifier over a run that ends at the first other character.
 */
const TAG_START_RE = /[<\uFE64\uFF1C](?=[\s/]*[uU\u0080-\uFFFF])/g;
const WORDS = ['untrusted', 'terminal', 'output'] as const;

/**
 * Reads `text` from an index as a reader would see it: each code point NFKC-normalised
 * (fullwidth `＜／ｕ` become `</u`) and lower-cased, invisible ones dropped.
 */
class SkeletonCursor {
  /** Normalised characters of the last code point read, not consumed yet. */
  private pending = '';
  private offset = 0;

  constructor(
    private readonly text: string,
    private index: number,
  ) {}

  peek(): string | undefined {
    while (this.offset >= this.pending.length) {
      if (this.index >= this.text.length) return undefined;
      const cp = this.text.codePointAt(this.index)!;
      this.offset = 0;
      if (cp < 0x80) {
        // ASCII is its own NFKC form and never invisible: the common case, kept cheap.
        this.index++;
        this.pending = String.fromCharCode(cp >= 0x41 && cp <= 0x5a ? cp + 0x20 : cp);
        continue;
      }
      const char = String.fromCodePoint(cp);
      this.index += char.length;
      this.pending = '';
      for (const part of char.normalize('NFKC').toLowerCase()) if (!INVISIBLE_RE.test(part)) this.pending += part;
    }
    return this.pending[this.offset];
  }

  next(): string | undefined {
    const char = this.peek();
    this.offset++;
    return char;
  }

  skip(accept: (char: string) => boolean): void {
    for (let char = this.peek(); char !== undefined && accept(char); char = this.peek()) this.offset++;
  }

  word(word: string): boolean {
    for (const expected of word) if (this.next() !== expected) return false;
    return true;
  }
}

const isSpace = (char: string) => SPACE_RE.test(char);
const isSeparator = (char: string) => isSpace(char) || char === '_' || char === '-';

/**
 * Whether a tag that reads as `<untrusted_terminal_output` or `</…` starts at `start`: any
 * case, spaces around the `/`, `_`, `-` or spaces between the words, fullwidth or other NFKC
 * look-alike letters, and invisible characters anywhere. Scans forward only as far as the
 * text keeps looking like the tag, so the whole check stays linear in the text.
 */
function tagLookalikeAt(text: string, start: number): boolean {
  const cursor = new SkeletonCursor(text, start);
  if (cursor.next() !== '<') return false;
  cursor.skip(isSpace);
  if (cursor.peek() === '/') cursor.next();
  cursor.skip(isSpace);
  return WORDS.every((word, i) => {
    if (i > 0) cursor.skip(isSeparator);
    return cursor.word(word);
  });
}

/**
 * `text` with the `<` of every tag-like `<untrusted_terminal_output` / `</…` (look-alikes
 * included) turned into `&lt;`. Opening tags are neutralised too, so the text cannot open a
 * fake nested fence either.
 */
export function neutraliseFenceTags(text: string): string {
  let out = '';
  let copied = 0;
  for (const { index: at } of text.matchAll(TAG_START_RE)) {
    if (!tagLookalikeAt(text, at)) continue;
    out += `${text.slice(copied, at)}&lt;`;
    copied = at + 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Wraps untrusted terminal output in the fence; the last line is the only real closing tag. */
export function wrapUntrusted(text: string, opts: FenceOptions): string {
  const id = opts.id ?? newFenceId();
  if (!FENCE_ID_RE.test(id)) {
    throw new CorralError('invalid_params', `invalid fence id "${id}"`, { id });
  }
  const body = neutraliseFenceTags(text);
  // Keep the closing tag on its own line without doubling a trailing newline the text already has.
  const sep = body === '' || body.endsWith('\n') ? '' : '\n';
  return (
    `<${FENCE_TAG} source="${opts.source ?? `surface:${opts.surfaceId}`}" total_lines="${opts.totalLines}" eof="${opts.eof}" id="${id}">\n` +
    `${body}${sep}</${FENCE_TAG} id="${id}">`
  );
}
