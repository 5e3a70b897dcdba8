/**
 * The outer terminal's clipboard, through OSC 52 ("set selection data"): works over ssh and
 * inside tmux (with `set-clipboard on`), needs no helper program. Terminals cap the sequence
 * (xterm ~100 KB, others more); past our cap the text stays in corral's buffer only.
 */

export const CLIPBOARD = {
  /** Largest text sent to the terminal's clipboard, in UTF-8 bytes (base64 grows it by a third). */
  maxBytes: 74_000,
} as const;

/** The OSC 52 sequence that puts `text` on the clipboard, or null when it is too long. */
export function osc52(text: string): string | null {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > CLIPBOARD.maxBytes) return null;
  return `\x1b]52;c;${bytes.toString('base64')}\x07`;
}
