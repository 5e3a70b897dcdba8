import { Text } from 'ink';
import { paint, type Style } from './paint.js';

/**
 * One line of text in one style. Never wraps (a wrapped line would push the rows below it
 * out of place). Styles are painted as SGR here, not through Ink's colour props: see paint.ts.
 */
export function Painted({ style, children }: { style?: Style; children: string }) {
  return <Text wrap="truncate-end">{paint(children, style)}</Text>;
}

/** Several differently styled pieces on one line. */
export function PaintedLine({ parts }: { parts: readonly { text: string; style?: Style }[] }) {
  return <Text wrap="truncate-end">{parts.map((p) => paint(p.text, p.style)).join('')}</Text>;
}
