/**
 * A pane's saved scrollback, kept current by converting only what is new since the last save.
 *
 * Why: converting a pane's last 2000 lines to SGR text at every save of a changed pane cost
 * echo p95 and flood throughput (20 busy panes: 40,000 rows per pass), and keeping every
 * converted row between saves cost ~3 MB a pane. Here rows above the screen, which never
 * change in place, are converted once, when they first appear there, and kept compressed.
 *
 * What is kept per pane, by absolute row number (`scrollbackFirstLine` + index, which survives
 * trimming):
 * - committed lines: every logical line that starts at or after `start` and ends before
 *   `end`, all rows above the screen. Full `chunks` are gzip members of about
 *   `chunkBytes` (16 KB) of text; the newest lines wait uncompressed in `pending` until they fill one.
 *   Only the newest `lines` committed lines are kept.
 * - nothing else: the rows from `end` on (the last rows above the screen, whose line may go on
 *   onto the screen, and the screen itself) are converted at each save.
 *
 * A save's file is gzip members concatenated (`cat a.gz b.gz` is one valid gzip stream):
 * a head member (the oldest needed chunk, cut to the needed lines, or the one line that
 * trimming has cut at its top, converted again), the full chunks after it unchanged, and a
 * last member of the pending lines and the converted rows. So a save compresses at most about
 * two chunks and the screen, however long the history.
 *
 * The text is byte for byte what `ScrollbackCapture.capture` (the full conversion) gives at
 * the same moment (test/unit/persist-log.test.ts checks it on random output). Where the
 * kept lines cannot say (a resize, which may reflow and renumber every row; every row from
 * `end` on blank, so the last shown row would be inside the kept lines; rows never converted
 * that the window needs), the save starts over or falls back to the full conversion.
 */
import { gunzipSync } from 'node:zlib';
import type { PaneTerminal } from '../terminal/pane-terminal.js';
import { CAPTURE_SLICE_ROWS, CaptureAborted, ScrollbackCapture, collectLines, endOfText } from './scrollback-capture.js';
import { GZIP_PIECE_BYTES, gzipText } from './gzip-pieces.js';

/**
 * Text per compressed chunk: big enough to compress well, small enough to re-cut cheaply (a
 * save of a pane with new lines inflates and deflates its oldest needed chunk). 2000 bench
 * lines: 7.9 KB on disk at 16 KB, 7.0 KB at 32 KB, 5.9 KB as one stream; the cut costs half.
 */
export const LOG_CHUNK_BYTES = GZIP_PIECE_BYTES;

/** Rows scanned for a line start below the screen before a commit gives up for this save. */
const MAX_BOUNDARY_SCAN = 1000;

interface Chunk {
  /** Absolute first row of each line. */
  starts: number[];
  /** One past the last row of its last line. */
  end: number;
  /** The lines, each followed by '\n', gzip-compressed: one member, or a few if a long last line made it bigger than a piece (gzip-pieces.ts). */
  data: Buffer;
}

export interface LogStats {
  /** Rows converted in all (commits, the rows after them, fallbacks). */
  rowsConverted: number;
  /** Saves that fell back to the full conversion. */
  fullCaptures: number;
  /** Saves that started over after a resize. */
  restarts: number;
}

export class ScrollbackLog {
  private chunks: Chunk[] = [];
  private pendingStarts: number[] = [];
  private pendingTexts: string[] = [];
  private pendingBytes = 0;
  /** One past the last committed row (a line start); null: nothing committed. */
  private end: number | null = null;
  private resizesSeen: number;
  readonly stats: LogStats = { rowsConverted: 0, fullCaptures: 0, restarts: 0 };

  constructor(
    readonly terminal: PaneTerminal,
    private readonly lines: number,
    private readonly options: { chunkBytes?: number; sliceRows?: number } = {},
  ) {
    this.resizesSeen = terminal.resizes;
  }

  /** Bytes held between saves (compressed chunks and pending text), for tests and benches. */
  get heldBytes(): number {
    let total = this.pendingBytes;
    for (const chunk of this.chunks) total += chunk.data.byteLength + chunk.starts.length * 8;
    return total;
  }

  /** Rows above the screen not yet committed: what the next save converts before the screen. */
  backlog(): number {
    if (this.terminal.isAlternateScreen) return 0;
    const first = this.terminal.scrollbackFirstLine;
    const screenTop = first + this.terminal.scrollback.baseY;
    return Math.max(0, screenTop - Math.max(first, this.end ?? first));
  }

  /**
   * The saved form of the pane's last `lines` lines: gzip members (see the file comment), or
   * null while a full-screen program owns the alternate screen (try again later).
   */
  async save(): Promise<Buffer | null> {
    if (this.lines <= 0) return gzipText('');
    // A resize meanwhile voids what was read: once more from the start, then give up for now.
    for (let attempt = 0; attempt < 2; attempt++) {
      if (this.terminal.resizes !== this.resizesSeen) this.restart();
      if (this.terminal.isAlternateScreen) return null;
      try {
        await this.commit();
        this.guard();
        return await this.assemble();
      } catch (error) {
        if (!(error instanceof CaptureAborted)) throw error;
      }
    }
    return null;
  }

  /** Throws CaptureAborted when what was read no longer holds. */
  private readonly guard = (): void => {
    if (this.terminal.isAlternateScreen) throw new CaptureAborted('alternate screen');
    if (this.terminal.resizes !== this.resizesSeen) throw new CaptureAborted('resized');
  };

  /** Starts over after a resize (which may reflow and renumber every row). */
  private restart(): void {
    this.clear();
    this.resizesSeen = this.terminal.resizes;
    this.stats.restarts++;
  }

  private clear(): void {
    this.chunks = [];
    this.pendingStarts = [];
    this.pendingTexts = [];
    this.pendingBytes = 0;
    this.end = null;
  }

  private get first(): number {
    return this.terminal.scrollbackFirstLine;
  }

  /** Converts the lines that have moved above the screen since the last commit. */
  private async commit(): Promise<void> {
    const buffer = this.terminal.scrollback;
    const first = this.first;
    const screenTop = first + buffer.baseY;
    const floor = Math.max(first, this.end ?? first);
    // The newest line start above the screen: the row there decides nothing any more.
    let boundary = screenTop - 1;
    while (boundary > floor && screenTop - boundary <= MAX_BOUNDARY_SCAN && buffer.getLine(boundary - first)?.isWrapped) boundary--;
    if (boundary <= floor || buffer.getLine(boundary - first)?.isWrapped) return;
    const got = await collectLines(this.terminal, {
      end: boundary,
      stop: this.end ?? -Infinity,
      maxLines: this.lines,
      lastShown: -1,
      sliceRows: this.options.sliceRows,
      guard: this.guard,
    });
    this.stats.rowsConverted += got.rows;
    // Joined to what was kept only when every row in between was read; else (the newest
    // `lines` lines were enough, or trimming overtook the walk) it replaces it.
    if (!got.reachedStop) this.clear();
    for (let i = 0; i < got.texts.length; i++) {
      this.pendingStarts.push(got.starts[i]!);
      this.pendingTexts.push(got.texts[i]!);
      this.pendingBytes += got.texts[i]!.length + 1;
    }
    this.end = boundary;
    await this.sealChunks();
    this.dropUnneeded();
  }

  /** Compresses the pending lines into chunks of about `chunkBytes`. */
  private async sealChunks(): Promise<void> {
    const chunkBytes = this.options.chunkBytes ?? LOG_CHUNK_BYTES;
    while (this.pendingBytes >= chunkBytes) {
      let n = 0;
      let bytes = 0;
      while (n < this.pendingTexts.length && bytes < chunkBytes) bytes += this.pendingTexts[n++]!.length + 1;
      const texts = this.pendingTexts.splice(0, n);
      const starts = this.pendingStarts.splice(0, n);
      this.pendingBytes -= bytes;
      const end = this.pendingStarts[0] ?? this.end!;
      this.chunks.push({ starts, end, data: await gzipText(texts.join('\n') + '\n') });
    }
  }

  /** Keeps only the newest `lines` committed lines, and none that trimming removed whole. */
  private dropUnneeded(): void {
    let count = this.pendingTexts.length;
    for (const chunk of this.chunks) count += chunk.starts.length;
    const first = this.first;
    while (this.chunks.length > 0) {
      const oldest = this.chunks[0]!;
      if (count - oldest.starts.length < this.lines && oldest.end > first) break;
      count -= oldest.starts.length;
      this.chunks.shift();
    }
  }

  /** The saved file: the needed committed lines, then the rows from `end` to the last shown. */
  private async assemble(): Promise<Buffer> {
    const first = this.first;
    if (this.end === null || this.end < first) return this.fullCapture();
    const shownEnd = endOfText(this.terminal, this.end);
    // Every row from `end` on is blank: the last shown row is a committed one, trimmed otherwise.
    if (shownEnd <= this.end) return this.fullCapture();
    const tail = await collectLines(this.terminal, {
      end: shownEnd,
      stop: this.end,
      maxLines: this.lines,
      lastShown: shownEnd - 1,
      sliceRows: this.options.sliceRows,
      guard: this.guard,
    });
    this.stats.rowsConverted += tail.rows;
    const tailText = tail.texts.join('\n');
    if (!tail.reachedStop) return gzipText(tailText);
    const need = this.lines - tail.texts.length;
    if (need <= 0) return gzipText(tailText);
    const head = await this.committedHead(need);
    if (head === null) return this.fullCapture();
    return Buffer.concat([...head.members, await gzipText(head.pendingText + tailText)]);
  }

  /** Absolute first row of committed line `i` (chunks' lines, then the pending ones). */
  private lineStart(i: number): number {
    for (const chunk of this.chunks) {
      if (i < chunk.starts.length) return chunk.starts[i]!;
      i -= chunk.starts.length;
    }
    return this.pendingStarts[i] ?? this.end!;
  }

  /**
   * The newest `need` committed lines (fewer if there are not as many): the chunks holding
   * them as members, the oldest cut to what is needed, and the pending ones as text. A line
   * that trimming has cut at its top is converted again from its first row still there.
   * Null when the window reaches rows no commit converted.
   */
  private async committedHead(need: number): Promise<{ members: Buffer[]; pendingText: string } | null> {
    const first = this.first;
    const chunked = this.chunks.reduce((n, chunk) => n + chunk.starts.length, 0);
    const total = chunked + this.pendingTexts.length;
    // Lines trimming removed whole are not shown.
    let available = 0;
    while (available < total && this.lineStart(available + 1) <= first) available++;
    const take = Math.min(need, total - available);
    // More is wanted than was committed: right only if no row before the oldest line is left.
    if (take < need && this.lineStart(available) > first) return null;
    const from = total - take;
    const cut = take > 0 && this.lineStart(from) < first;
    const again = cut ? await this.convertCutLine(this.lineStart(from + 1)) : '';
    const members: Buffer[] = [];
    let index = 0;
    let offset = from;
    while (index < this.chunks.length && offset >= this.chunks[index]!.starts.length) offset -= this.chunks[index++]!.starts.length;
    if (index < this.chunks.length) {
      const chunk = this.chunks[index]!;
      if (offset === 0 && !cut) members.push(chunk.data);
      else {
        // One chunk: ~16 KB of text (a few members if a long line made it bigger), inflated in well under a millisecond.
        const texts = gunzipSync(chunk.data).toString('utf8').split('\n').slice(offset, chunk.starts.length);
        if (cut) texts[0] = again;
        members.push(await gzipText(texts.join('\n') + '\n'));
      }
      for (const later of this.chunks.slice(index + 1)) members.push(later.data);
      offset = 0;
    }
    const pending = this.pendingTexts.slice(offset);
    if (cut && index === this.chunks.length) pending[0] = again;
    return { members, pendingText: pending.length === 0 ? '' : pending.join('\n') + '\n' };
  }

  /** The line ending just before row `lineEnd`, from the first of its rows still there. */
  private async convertCutLine(lineEnd: number): Promise<string> {
    const got = await collectLines(this.terminal, { end: lineEnd, stop: -Infinity, maxLines: 1, lastShown: -1, sliceRows: this.options.sliceRows, guard: this.guard });
    this.stats.rowsConverted += got.rows;
    return got.texts[0] ?? '';
  }

  private async fullCapture(): Promise<Buffer> {
    this.stats.fullCaptures++;
    const text = await new ScrollbackCapture(this.terminal).capture(this.lines, this.options.sliceRows ?? CAPTURE_SLICE_ROWS);
    if (text === null) throw new CaptureAborted('alternate screen');
    return gzipText(text);
  }
}
