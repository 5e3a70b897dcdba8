/**
 * The chrome's views. The TUI controller calls `renderChrome` for the compositor's UI layer
 * whenever the ChromeModel changes and `renderOverlay` for the overlay layer; pane contents
 * never come through here.
 */
export { renderChrome, createChromeRenderer, chromeLayout } from './Chrome.js';
export { renderOverlay } from './Overlay.js';
export type { OverlayRender } from './overlay-box.js';
export { BADGE, NO_BADGE, badgeFor } from './badges.js';
export type { Badge } from './badges.js';
export { Sidebar } from './Sidebar.js';
export { TabBar } from './TabBar.js';
export { StatusLine } from './StatusLine.js';
export { paneFrameLines, drawPaneFrames } from './PaneFrames.js';
export { HelpOverlay } from './HelpOverlay.js';
export { WorkspaceSwitcher } from './WorkspaceSwitcher.js';
export { RenameOverlay } from './RenameOverlay.js';
export { hitTest } from './hit-test.js';
export type { ChromeHit } from './hit-test.js';
