/** The chrome's non-badge styles, in one place so every view agrees (badges live in badges.ts). */
import { COLOR, type Style } from './paint.js';

export const THEME = {
  // Section headings (WORKSPACES, AGENTS, help categories): quiet but distinct from entries.
  heading: { bold: true, fg: COLOR.cyan },
  // Secondary text (hints, `where`, indexes): dim so the eye lands on names and states.
  muted: { dim: true },
  // The bar at the left of a focused sidebar row; colour alone marks focus without inverse.
  focusMarker: { fg: COLOR.brightCyan, bold: true },
  focusedText: { bold: true, fg: COLOR.brightWhite },
  // Focused tab / selected switcher row: inverse reads as "selected" on every theme.
  selected: { inverse: true, bold: true },
  // Pane borders: the focused one bright and bold, the rest dim so it stands out.
  frameFocused: { fg: COLOR.brightCyan, bold: true },
  frameUnfocused: { dim: true },
  frameTitleFocused: { bold: true, fg: COLOR.brightWhite },
  frameTitle: {},
  zoomMarker: { fg: COLOR.brightYellow, bold: true },
  scrollIndicator: { fg: COLOR.brightYellow, bold: true },
  sidebarBorder: { dim: true },
  overlayBorder: { fg: COLOR.brightCyan, bold: true },
  overlayTitle: { bold: true, fg: COLOR.brightWhite },
  // A worktree's diff size under its agent: git's own colours for added and removed lines.
  added: { fg: COLOR.green },
  removed: { fg: COLOR.red },
  // Status line pieces.
  prefixActive: { inverse: true, bold: true, fg: COLOR.yellow },
  prefixIdle: { dim: true },
  scriptingOn: { fg: COLOR.green, bold: true },
  scriptingOff: { dim: true },
  message: {},
  error: { fg: COLOR.red, bold: true },
  helpKeys: { fg: COLOR.brightYellow },
  inputCursor: { fg: COLOR.brightCyan },
  // The sidebar mark of an agent that sent a notification nobody has looked at yet.
  notifyMark: { fg: COLOR.brightMagenta, bold: true },
} as const satisfies Record<string, Style>;

/** Glyphs the chrome draws besides box lines and badges. */
export const GLYPH = {
  // Left-half block: a focus bar that needs no colour support to be seen.
  focusBar: '▌',
  // Thin bar after the rename input's text, where typing goes.
  inputCursor: '▏',
  // Shown in place of tabs scrolled out of the tab bar.
  moreLeft: '‹',
  moreRight: '›',
  // Sidebar mark of a notified agent: ASCII, so it is one cell in every width table.
  notified: '*',
  // Before a worktree agent's branch: the "alternative" sign git tools use for branches (one cell wide).
  branch: '\u2387',
} as const;
