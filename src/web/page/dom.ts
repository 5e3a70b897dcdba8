/**
 * Building the page's elements. Text from panes and agents (lines, titles, messages, names) is
 * never markup: it goes in with `textContent`, its control characters made visible (`^[`),
 * so a pane that prints `<img onerror=…>` or an escape sequence shows exactly that.
 */
import { visibleControls } from '../../terminal/control-chars.js';

type Attrs = Record<string, string>;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Node | null)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  for (const child of children) if (child) node.appendChild(child);
  return node;
}

/** A text node of untrusted text, controls visible (line breaks kept only in `multiline` text). */
export function text(value: string, multiline = false): Text {
  return document.createTextNode(visibleControls(value, { keepNewlines: multiline }));
}

/** An element holding only untrusted text. */
export function textEl<K extends keyof HTMLElementTagNameMap>(tag: K, value: string, attrs: Attrs = {}, multiline = false): HTMLElementTagNameMap[K] {
  return el(tag, attrs, text(value, multiline));
}
