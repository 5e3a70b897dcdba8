/** Anything that subscribes, or owns a timer or a child, hands one of these back (STYLE.md). */
export interface Disposable {
  dispose(): void;
}
