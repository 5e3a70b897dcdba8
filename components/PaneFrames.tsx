/**
 * Pane frames: a single-line box per pane at its absolute rect, the title in the top border,
 * the scroll position in the bottom border, the interior blank (the compositor draws the
 * pane's screen there). Drawn with string code on a Canvas rather than as Ink boxes: four
 * absolutely positioned Ink boxes on a 160×45 screen cost ~10 ms of layout per render, this
 * costs well under a millisecond, and the chrome is re-rendered on every focus change.
 */
import type { PaneFrame } from './chrome-model.js';
import type { Rect } from '../src/contract/rect.js';
import { badgeFor } from './badges.js';
import { drawBox } from './box.js';
import { Canvas, type Segment } from './canvas.js';
import { THEME } from './theme.js';

/** The title segments of a frame: state badge, then the title. */
export function frameTitle(frame: PaneFrame): Segment[] {
  const title: Segment = { text: frame.title, style: frame.focused ? THEME.frameTitleFocused : THEME.frameTitle };
  if (frame.agentStatus === null) return [title];
  const badge = badgeFor(frame.agentStatus);
  return [{ text: badge.glyph, style: badge.style }, { text: ' ' }, title];
}

/** Draws every frame onto `canvas` (later frames over earlier ones). */
export function drawPaneFrames(canvas: Canvas, frames: readonly PaneFrame[]): void {
  for (const frame of frames) {
    drawBox(canvas, frame.rect, {
      kind: 'square',
      border: frame.focused ? THEME.frameFocused : THEME.frameUnfocused,
      title: frameTitle(frame),
      topRight: frame.zoomed ? [{ text: 'zoomed', style: THEME.zoomMarker }] : [],
      bottomRight: frame.scrollIndicator ? [{ text: frame.scrollIndicator, style: THEME.scrollIndicator }] : [],
    });
  }
}

/** The main area (`area`, absolute) with its frames, as ANSI lines of exactly area.cols cells. */
export function paneFrameLines(frames: readonly PaneFrame[], area: Rect): string[] {
  const canvas = new Canvas(area);
  drawPaneFrames(canvas, frames);
  return canvas.toLines();
}
