/**
 * `${name}` placeholders in flow files: `${item}` (the current foreach item) and `${var}`
 * (text a `capture` stored). `$${` writes a literal `${`. A `${` that does not close, or
 * whose name is not an identifier, is an error rather than text, so typos surface early.
 */

/** The placeholder a foreach step's item fills. */
export const ITEM_VARIABLE = 'item';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type TemplatePart = { text: string } | { variable: string };

/** Splits a template into text and variables; throws an Error with a readable reason. */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = '';
  let i = 0;
  while (i < template.length) {
    if (template.startsWith('$${', i)) {
      text += '${';
      i += 3;
      continue;
    }
    if (template.startsWith('${', i)) {
      const close = template.indexOf('}', i + 2);
      if (close < 0) throw new Error(`"\${" at offset ${i} is not closed with "}" (write "$\${" for a literal "\${")`);
      const name = template.slice(i + 2, close);
      if (!NAME.test(name)) throw new Error(`"\${${name}}" is not a variable name (letters, digits and _, not starting with a digit)`);
      if (text) parts.push({ text });
      text = '';
      parts.push({ variable: name });
      i = close + 1;
      continue;
    }
    text += template[i];
    i++;
  }
  if (text) parts.push({ text });
  return parts;
}

/** The variable names a template uses, in order, without repeats. */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const part of parseTemplate(template)) if ('variable' in part && !names.includes(part.variable)) names.push(part.variable);
  return names;
}

/**
 * Fills the variables `values` has; the others stay as written (`${name}`), so a later pass
 * can fill them. Literal `$${` stays escaped until the last pass (`final`).
 */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>, final = false): string {
  return parseTemplate(template)
    .map((part) => {
      if ('text' in part) return final ? part.text : part.text.split('${').join('$${');
      const value = values[part.variable];
      return value === undefined ? `\${${part.variable}}` : final ? value : value.split('${').join('$${');
    })
    .join('');
}
