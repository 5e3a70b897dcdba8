/**
 * The bytes of a desktop notification for the TUI's own terminal: OSC 9 (iTerm2, WezTerm,
 * Windows Terminal, Ghostty, foot, kitty) and OSC 777 (rxvt-unicode, VTE terminals such as
 * GNOME Terminal, Ghostty, WezTerm), then a bell. The text comes from peers (agent names,
 * hook messages), so it is made safe first: a control character could end the OSC early and
 * smuggle escape sequences to the user's terminal.
 */

import { visibleControls } from '../terminal/control-chars.js';

const NOTIFY_TEXT = {
  /** Desktop notifications are a glance; terminals cut or reject long payloads anyway. */
  maxChars: 200,
} as const;

const BEL = '\x07';
const OSC = '\x1b]';

/** Line breaks and TAB: a notification is one line, so they become spaces rather than `^J`. */
const LINE_BREAKS = /[\r\n\t]/g;

/**
 * `text` on one line with the other controls made visible (`^[`, `^?`, `\x9b`: the one
 * helper, src/terminal/control-chars.ts), cut to a notification's length.
 */
export function visibleText(text: string): string {
  const out = visibleControls(text.replace(LINE_BREAKS, ' '));
  const chars = [...out];
  return chars.length > NOTIFY_TEXT.maxChars ? `${chars.slice(0, NOTIFY_TEXT.maxChars - 1).join('')}…` : out;
}

/**
 * OSC 9 and OSC 777 notifications plus a bell. OSC 9's payload starting with a digit and `;`
 * would read as a ConEmu command (`9;4` is progress), so it always starts with the title.
 * OSC 777 splits fields on `;`, so the title has none.
 */
export function notificationBytes(title: string, body: string): string {
  const safeTitle = visibleText(title).replace(/;/g, ',');
  const safeBody = visibleText(body);
  return `${OSC}9;${safeTitle}: ${safeBody}${BEL}${OSC}777;notify;${safeTitle};${safeBody}${BEL}${BEL}`;
}
