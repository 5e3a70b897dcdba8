/** A cell in copy mode's frozen source: line index and cell column. */
export interface Pos {
  line: number;
  col: number;
}

/** Orders positions: negative when a comes first. */
export function comparePos(a: Pos, b: Pos): number {
  return a.line - b.line || a.col - b.col;
}

/** The two positions in reading order. */
export function ordered(a: Pos, b: Pos): [Pos, Pos] {
  return comparePos(a, b) <= 0 ? [a, b] : [b, a];
}
