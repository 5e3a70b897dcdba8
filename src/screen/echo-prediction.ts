/**
 * When may output be shown before the pane's terminal has parsed it? Only when the result is
 * certain: short printable ASCII (here) that the pane's terminal would print cell by cell in
 * the default pen (`PaneScreen.printsPlainAscii`, src/terminal/plain-print.ts). The compositor
 * adds the checks on its side (see Compositor.predictEcho).
 */

/** Longest output predicted: a keystroke's echo, or a short burst of typing. */
export const MAX_PREDICTED = 32;

/** `data` as text when it is 1…MAX_PREDICTED printable ASCII characters (0x20–0x7e), else null. */
export function printableAscii(data: string | Uint8Array): string | null {
  const n = data.length;
  if (n === 0 || n > MAX_PREDICTED) return null;
  let text = '';
  for (let i = 0; i < n; i++) {
    const code = typeof data === 'string' ? data.charCodeAt(i) : (data[i] as number);
    if (code < 0x20 || code > 0x7e) return null;
    text += String.fromCharCode(code);
  }
  return text;
}
