/**
 * The one table of agent-state badges: glyph, word and style per status. Sidebar, tab bar,
 * pane frames and the workspace switcher all draw from it, so a state looks the same
 * everywhere. Every glyph is one cell wide in Ink's string-width, in the compositor's
 * char-width and in xterm's Unicode 6 tables (checked by a test).
 */
import type { AgentStatus } from '../src/contract/protocol.js';
import { COLOR, type Style } from './paint.js';

export interface Badge {
  /** One cell. */
  glyph: string;
  /** The status as a word, at most BADGE_WORD_WIDTH cells. */
  word: string;
  /** Style for the glyph. */
  style: Style;
  /** Style for the word (the sidebar's status column). */
  wordStyle: Style;
}

/**
 * `done` must stand out from `idle` until seen (SPEC §4): bright green bold tick against a
 * dim circle. Blocked is the loudest (it waits for a human), errored red, stalled orange.
 */
export const BADGE: Readonly<Record<AgentStatus, Badge>> = {
  working: { glyph: '◐', word: 'working', style: { fg: COLOR.yellow, bold: true }, wordStyle: { fg: COLOR.yellow } },
  blocked: { glyph: '!', word: 'blocked', style: { fg: COLOR.brightMagenta, bold: true }, wordStyle: { fg: COLOR.brightMagenta, bold: true } },
  done: { glyph: '✔', word: 'done', style: { fg: COLOR.brightGreen, bold: true }, wordStyle: { fg: COLOR.brightGreen, bold: true } },
  idle: { glyph: '○', word: 'idle', style: { dim: true }, wordStyle: { dim: true } },
  unknown: { glyph: '?', word: 'unknown', style: { fg: COLOR.gray }, wordStyle: { fg: COLOR.gray } },
  errored: { glyph: '✗', word: 'errored', style: { fg: COLOR.red, bold: true }, wordStyle: { fg: COLOR.red } },
  stalled: { glyph: '…', word: 'stalled', style: { fg: COLOR.orange, bold: true }, wordStyle: { fg: COLOR.orange } },
};

/** Widest `word` in BADGE, so status columns line up. */
export const BADGE_WORD_WIDTH = Math.max(...Object.values(BADGE).map((b) => b.word.length));

/** A workspace/tab with no agents: a blank cell keeps the columns aligned. */
export const NO_BADGE: Badge = { glyph: ' ', word: '', style: {}, wordStyle: {} };

/** The badge for a status, or NO_BADGE for null (no agents to roll up). */
export function badgeFor(status: AgentStatus | null): Badge {
  return status === null ? NO_BADGE : BADGE[status];
}
