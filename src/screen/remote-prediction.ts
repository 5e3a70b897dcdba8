/**
 * Predicted echo for a pane whose echo comes back over a link (a machine's pane, SPEC §14):
 * mosh's idea (src/frontend/terminaloverlay.cc, its PredictionEngine). A printable key typed
 * at a prompt is drawn at once, where the remote program would echo it, as an overlay over the
 * mirrored screen — never written into the mirror — and reconciled when the remote answers.
 *
 * Pure logic over a small read interface (`EchoScreen`) and a caller's clock: the mirror feeds
 * it the keys it sends, the frames it applies and the remote's acknowledgements; the TUI reads
 * `cells()` and `cursor()` to draw.
 *
 * How it stays honest (the decisions, as mosh took them; docs/machines.md):
 * - every key sent is numbered; the remote acknowledges a key after the pane's first output
 *   that followed it (or after a short quiet time when there was none). A prediction whose key
 *   is acknowledged is judged against the mirror: the cell shows its character (confirmed,
 *   removed: the mirror now draws it) or not (wrong: every prediction goes, the overlay shows
 *   the mirror, and predicting starts over tentatively). So once the remote has answered every
 *   key, what is drawn is exactly the remote screen. A remote that never acknowledges (an older
 *   corral) gets the same judgement after `answerTimeoutMs`.
 * - epochs: predictions are shown only once one prediction of their epoch was confirmed by an
 *   echo. A key that cannot be predicted (Enter, a control key, an escape sequence), a wrong
 *   prediction, a scroll or the alternate screen start a new epoch. So the first key after
 *   Enter is never shown early — and at a password prompt (echo off) no key ever is, since none
 *   is echoed to confirm its epoch.
 * - a key is predicted only when every earlier key was predicted or answered, the screen is
 *   the normal one, the cursor is visible and the character stays on the cursor's row: its
 *   place is then known exactly.
 * - shown only while the link is slow enough to matter ('adaptive': smoothed round trip above
 *   30 ms, below 20 ms off again), underlined while it is very slow (above 80 ms, off below
 *   50 ms) or while a prediction waits longer than `glitchMs` — mosh's thresholds.
 */
import { ATTR, type PrintPen } from './cell.js';

/** `[machines] predict` and `corral web --predict`: mosh's --predict values. */
export const PREDICT_MODES = ['adaptive', 'always', 'never'] as const;
export type PredictMode = (typeof PREDICT_MODES)[number];

/**
 * corral's default where nothing says otherwise: 'always', not mosh's 'adaptive', so a key is
 * drawn at once on a link of any speed and underlined once the round trip passes
 * `PREDICTION.flagAboveMs` (docs/machines.md "Predicted echo").
 */
export const DEFAULT_PREDICT: PredictMode = 'always';

export const PREDICTION = {
  /** 'adaptive' shows predictions above this smoothed round trip (mosh SRTT_TRIGGER_HIGH)… */
  showAboveMs: 30,
  /** …and stops below this one (mosh SRTT_TRIGGER_LOW): hysteresis, no flicker around one value. */
  showBelowMs: 20,
  /** Unconfirmed predictions are underlined above this round trip (mosh FLAG_TRIGGER_HIGH)… */
  flagAboveMs: 80,
  /** …and no longer below this one (mosh FLAG_TRIGGER_LOW). */
  flagBelowMs: 50,
  /** A prediction waiting this long is underlined whatever the round trip (mosh GLITCH_THRESHOLD). */
  glitchMs: 250,
  /** A key never acknowledged (an older remote) is judged after this long, or 4 round trips if longer. */
  answerTimeoutMs: 1000,
  /** Weight of a new round-trip sample in the smoothed one (TCP's SRTT gain). */
  srttGain: 1 / 8,
  /** Keys remembered for their round-trip sample; older ones give none. */
  maxTimed: 256,
} as const;

/** What the predictor reads of the mirrored screen (viewport coordinates). */
export interface EchoScreen {
  readonly cols: number;
  readonly rows: number;
  readonly bufferType: 'normal' | 'alternate';
  /** Buffer line of the screen's top row: it moves when the screen scrolls. */
  readonly baseY: number;
  cursor(): { x: number; y: number; visible: boolean };
  /** The character shown in cell (x, y) (' ' when blank). */
  charAt(x: number, y: number): string;
  /** The pen printable ASCII gets at the cursor, null when it would not print plainly. */
  printPen(): PrintPen | null;
}

/** A predicted cell as drawn: underlined (`flagged`) while unconfirmed on a slow link. */
export interface PredictedCell {
  /** The key (its input number) the character came with. */
  seq: number;
  x: number;
  y: number;
  char: string;
  pen: PrintPen;
}

interface Prediction {
  /** The key (its input number) this character came with. */
  seq: number;
  x: number;
  y: number;
  char: string;
  /** What the cell showed when predicted: a match that was there already confirms nothing. */
  before: string;
  pen: PrintPen;
  epoch: number;
  sentAt: number;
}

const BACKSPACE = new Set(['\x7f', '\b']);

function isPrintableAscii(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return false;
  }
  return true;
}

export class EchoPredictor {
  private predictions: Prediction[] = [];
  private epoch = 0;
  /** The newest epoch one of whose predictions the remote's echo confirmed (-1: none yet). */
  private confirmedEpoch = -1;
  /** Every key up to this number has been answered (acknowledged, or judged by timeout). */
  private answered = 0;
  /** The newest key not predicted, and when it was sent: predicting waits until it is answered. */
  private unpredicted = 0;
  private unpredictedAt = 0;
  private readonly timed = new Map<number, number>();
  private baseY: number | null = null;
  private size = '';
  /** Smoothed round trip (ms), from acknowledgements and the link's pings; null before the first. */
  srtt: number | null = null;
  private showing: boolean;
  private flagging = false;
  /** Counts for tests and the bench: predictions made, confirmed, found wrong. */
  readonly stats = { predicted: 0, confirmed: 0, wrong: 0 };

  constructor(
    private readonly screen: EchoScreen,
    public mode: PredictMode = 'adaptive',
  ) {
    this.showing = mode === 'always';
  }

  /** Input `seq` (numbered from 1, increasing) carrying `data` is about to be sent at `now`. */
  typed(data: string, seq: number, now: number): void {
    this.timed.set(seq, now);
    if (this.timed.size > PREDICTION.maxTimed) this.timed.delete(this.timed.keys().next().value as number);
    if (this.mode === 'never') return;
    if (BACKSPACE.has(data)) {
      // Taking back a key not yet echoed: its guess goes at once; where the next key lands
      // depends on how the program erases, so predicting waits for this key's answer.
      const last = this.predictions.at(-1);
      if (last && last.seq > this.answered) this.predictions.pop();
      this.skip(seq, now, false);
      return;
    }
    if (!isPrintableAscii(data) || !this.mayPredict(now)) {
      this.skip(seq, now, !isPrintableAscii(data));
      return;
    }
    const pen = this.screen.printPen();
    const cursor = this.screen.cursor();
    if (pen === null || !cursor.visible) {
      this.skip(seq, now, true);
      return;
    }
    this.noteGeometry();
    const last = this.predictions.at(-1);
    let x = last ? last.x + 1 : cursor.x;
    const y = last ? last.y : cursor.y;
    for (const char of data) {
      // The last column would leave the cursor pending a wrap: not a plain place.
      if (x >= this.screen.cols - 1 || y >= this.screen.rows) {
        this.skip(seq, now, false);
        return;
      }
      this.predictions.push({ seq, x, y, char, before: this.screen.charAt(x, y), pen, epoch: this.epoch, sentAt: now });
      this.stats.predicted++;
      x++;
    }
  }

  /**
   * The remote says it has taken every key up to `seq` and sent the output that followed;
   * `quiet`: there was none, and it waited (the wait is no part of the link's round trip).
   */
  ack(seq: number, now: number, quiet = false): void {
    const sent = this.timed.get(seq);
    if (sent !== undefined && !quiet) this.sample(now - sent);
    for (const key of this.timed.keys()) {
      if (key > seq) break;
      this.timed.delete(key);
    }
    this.answer(seq);
  }

  /** The link's own measured round trip (its pings): seeds and steadies the smoothed one. */
  linkRtt(ms: number | null): void {
    if (ms !== null && ms >= 0) this.sample(ms);
  }

  /** The mirrored screen changed (a batch was parsed): confirm what it now shows. */
  frame(): void {
    if (this.predictions.length === 0) {
      this.noteGeometry();
      return;
    }
    if (this.screen.bufferType !== 'normal' || this.geometryMoved()) {
      // A full-screen program, a scroll or a resize: every place predicted is gone.
      this.dropAll();
      return;
    }
    this.predictions = this.predictions.filter((p) => {
      const shown = this.screen.charAt(p.x, p.y);
      if (shown !== p.char || p.before === p.char) return true;
      // The echo: the mirror draws it from now on, and its epoch is trusted.
      this.confirmedEpoch = Math.max(this.confirmedEpoch, p.epoch);
      this.stats.confirmed++;
      return false;
    });
  }

  /** The remote's screen was replaced (a snapshot) or resized: nothing predicted still holds. */
  reset(): void {
    this.dropAll();
    this.baseY = null;
  }

  /** Judges keys nobody acknowledged in time (an older remote); call at `nextDeadline()`. */
  tick(now: number): void {
    const timeout = this.answerTimeout();
    let due = this.answered;
    for (const p of this.predictions) if (now - p.sentAt >= timeout) due = Math.max(due, p.seq);
    if (this.unpredicted > this.answered && now - this.unpredictedAt >= timeout) due = Math.max(due, this.unpredicted);
    if (due > this.answered) this.answer(due);
  }

  /** When, after `now`, `tick` next has something to do (a flag to raise or a key to judge), or null. */
  nextDeadline(now: number): number | null {
    let next = Number.POSITIVE_INFINITY;
    const timeout = this.answerTimeout();
    for (const p of this.predictions) {
      next = Math.min(next, p.sentAt + timeout);
      if (this.visibleEpoch(p) && p.sentAt + PREDICTION.glitchMs > now) next = Math.min(next, p.sentAt + PREDICTION.glitchMs);
    }
    if (this.unpredicted > this.answered) next = Math.min(next, this.unpredictedAt + timeout);
    return Number.isFinite(next) ? next : null;
  }

  /** The predicted cells to draw over the mirror at `now` (empty when none is shown). */
  cells(now: number): PredictedCell[] {
    if (!this.showing) return [];
    const out: PredictedCell[] = [];
    for (const p of this.predictions) {
      // Epochs only grow along the list: the shown ones are a prefix.
      if (!this.visibleEpoch(p)) break;
      const flagged = this.flagging || now - p.sentAt >= PREDICTION.glitchMs;
      out.push({ seq: p.seq, x: p.x, y: p.y, char: p.char, pen: flagged ? { ...p.pen, attrs: p.pen.attrs | ATTR.underline } : p.pen });
    }
    return out;
  }

  /** Where the cursor is drawn while predictions are shown (after the last), else null. */
  cursor(): { x: number; y: number } | null {
    if (!this.showing) return null;
    let at: { x: number; y: number } | null = null;
    for (const p of this.predictions) {
      if (!this.visibleEpoch(p)) break;
      at = { x: p.x + 1, y: p.y };
    }
    return at;
  }

  /** Whether any key's guess is still waiting (shown or not). */
  get pending(): number {
    return this.predictions.length;
  }

  private visibleEpoch(p: Prediction): boolean {
    return p.epoch <= this.confirmedEpoch;
  }

  private mayPredict(now: number): boolean {
    if (this.screen.bufferType !== 'normal') return false;
    // Every key before this one predicted or answered: the place of this one is known.
    return this.unpredicted <= this.answered || now - this.unpredictedAt >= this.answerTimeout();
  }

  /** Key `seq` is not predicted; `newEpoch`: what it does is unknown, so later guesses start tentative. */
  private skip(seq: number, now: number, newEpoch: boolean): void {
    this.unpredicted = seq;
    this.unpredictedAt = now;
    if (newEpoch) this.epoch++;
  }

  private answer(seq: number): void {
    if (seq <= this.answered) return;
    this.answered = seq;
    this.frame();
    let wrong = false;
    this.predictions = this.predictions.filter((p) => {
      if (p.seq > seq) return true;
      // Answered and showing it, though the cell held it before: right, but it proves no echo.
      if (this.screen.charAt(p.x, p.y) !== p.char) wrong = true;
      return false;
    });
    // A key answered otherwise than guessed: nothing guessed after it holds either.
    if (wrong) {
      this.stats.wrong++;
      this.dropAll();
    }
  }

  private dropAll(): void {
    this.predictions = [];
    this.epoch++;
    this.noteGeometry();
  }

  private noteGeometry(): void {
    this.baseY = this.screen.baseY;
    this.size = `${this.screen.cols}x${this.screen.rows}`;
  }

  private geometryMoved(): boolean {
    return this.baseY !== this.screen.baseY || this.size !== `${this.screen.cols}x${this.screen.rows}`;
  }

  private answerTimeout(): number {
    return Math.max(PREDICTION.answerTimeoutMs, 4 * (this.srtt ?? 0));
  }

  private sample(ms: number): void {
    this.srtt = this.srtt === null ? ms : this.srtt + PREDICTION.srttGain * (ms - this.srtt);
    if (this.mode === 'adaptive') {
      if (this.srtt > PREDICTION.showAboveMs) this.showing = true;
      else if (this.srtt < PREDICTION.showBelowMs) this.showing = false;
    } else this.showing = this.mode === 'always';
    if (this.srtt > PREDICTION.flagAboveMs) this.flagging = true;
    else if (this.srtt < PREDICTION.flagBelowMs) this.flagging = false;
  }
}
