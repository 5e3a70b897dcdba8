/**
 * The bytes of a desktop notification for the TUI's own terminal: OSC 9 (iTerm2, WezTerm,
 * Windows Terminal, Ghostty, foot, kitty) and OSC 777 (rxvt-unicode, VTE terminals such as
 * GNOME Terminal, Ghostty, WezTerm), then a bell. The text comes from peers (agent names,
 * hook messages), so it is made safe first: a control character could end the OSC early and
 * smuggle escape sequences to the user's terminal.
 */

const NOTIFY_TEXT = {
  /** Desktop notifications are a glance; terminals cut or reject long payloads anyway. */
  maxChars: 200,
} as const;

const BEL = '\x07';
const OSC = '\x1b]';

/**
 * `text` with C0/C1 controls and DEL shown as visible escapes (`^[`, `^?`, `\u009b`), on
 * one line, cut to a notification's length.
 */
export function visibleText(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code === 0x0a || code === 0x0d || code === 0x09) out += ' ';
    else if (code < 0x20) out += `^${String.fromCharCode(code + 0x40)}`;
    else if (code === 0x7f) out += '^?';
    else if (code >= 0x80 && code < 0xa0) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
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
