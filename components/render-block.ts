/** Renders an Ink element offscreen into a block of exactly `rows` lines of `cols` cells. */
import { renderToString } from 'ink';
import type { ReactNode } from 'react';
import { fitAnsi } from './text-cells.js';

/**
 * Ink trims trailing spaces and sizes its output to the content, so every line is padded or
 * cut to `cols` and missing lines are blank: callers can place the block cell-exactly.
 */
export function renderBlock(node: ReactNode, cols: number, rows: number): string[] {
  if (rows <= 0) return [];
  if (cols <= 0) return new Array<string>(rows).fill('');
  const lines = renderToString(node, { columns: cols }).split('\n');
  const out: string[] = [];
  for (let y = 0; y < rows; y++) out.push(fitAnsi(lines[y] ?? '', cols));
  return out;
}
