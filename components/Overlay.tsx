/** Renders the open overlay (help, workspace switcher, rename prompt, y/n question) as its own centred box. */
import type { ChromeModel } from './chrome-model.js';
import { renderConfirm } from './ConfirmOverlay.js';
import { renderHelp } from './HelpOverlay.js';
import type { OverlayRender } from './overlay-box.js';
import { renderRename } from './RenameOverlay.js';
import { renderSwitcher } from './WorkspaceSwitcher.js';

/**
 * The overlay as `rect.rows` lines of `rect.cols` cells, and where it goes; null when none
 * is open or the screen is too small to draw a box (under 3×3).
 */
export function renderOverlay(model: ChromeModel): OverlayRender | null {
  const overlay = model.overlay;
  if (!overlay) return null;
  switch (overlay.kind) {
    case 'help':
      return renderHelp(overlay.sections, model.cols, model.rows);
    case 'workspace-switcher':
      return renderSwitcher(overlay, model.cols, model.rows);
    case 'rename':
      return renderRename(overlay.what, overlay.value, model.cols, model.rows);
    case 'confirm':
      return renderConfirm(overlay.question, model.cols, model.rows);
  }
}
