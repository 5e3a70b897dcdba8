/** Cursor shapes a DECSCUSR sequence can ask for; 'default' is the user's terminal setting. */
export type CursorShape = 'default' | 'block' | 'underline' | 'bar';

/** Where the hardware cursor goes after a frame, and how it looks. */
export interface CursorState {
  /** Zero-based screen column. */
  x: number;
  /** Zero-based screen row. */
  y: number;
  visible: boolean;
  shape: CursorShape;
  blink: boolean;
}

/** A hidden cursor at the origin, for screens with no focused pane. */
export const HIDDEN_CURSOR: CursorState = Object.freeze({ x: 0, y: 0, visible: false, shape: 'default', blink: false });

/** DECSCUSR parameter per shape, steady variant; the blinking variant is one less. */
const DECSCUSR_STEADY = { block: 2, underline: 4, bar: 6 } as const;

/** The DECSCUSR parameter (0–6) for a shape. */
export function decscusrParam(shape: CursorShape, blink: boolean): number {
  if (shape === 'default') return 0;
  return DECSCUSR_STEADY[shape] - (blink ? 1 : 0);
}

/** The shape and blink a DECSCUSR parameter asks for (0 and unknown values: default). */
export function shapeFromDecscusr(param: number): { shape: CursorShape; blink: boolean } {
  switch (param) {
    case 1: return { shape: 'block', blink: true };
    case 2: return { shape: 'block', blink: false };
    case 3: return { shape: 'underline', blink: true };
    case 4: return { shape: 'underline', blink: false };
    case 5: return { shape: 'bar', blink: true };
    case 6: return { shape: 'bar', blink: false };
    default: return { shape: 'default', blink: false };
  }
}
