import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { COMMANDS, COMMAND_IDS, resolveBindings } from '../../src/config/keybindings.js';
import { helpSections } from '../../src/tui/chrome-builder.js';
import { encodeKey } from '../../src/terminal/keys.js';

describe('keybindings', () => {
  it('gives every command keys, a description and a category', () => {
    for (const id of COMMAND_IDS) {
      const spec = COMMANDS[id];
      expect(spec.keys.length, id).toBeGreaterThan(0);
      expect(spec.description.length, id).toBeGreaterThan(5);
      expect(['Panes', 'Tabs', 'Workspaces', 'Agents', 'Session']).toContain(spec.category);
      for (const key of spec.keys) expect(() => encodeKey(key), `${id}: ${key}`).not.toThrow();
    }
  });

  it('binds every SPEC §12 key', () => {
    const bindings = resolveBindings({}, 'ctrl+b');
    const expected: Record<string, string> = {
      c: 'new_tab', v: 'split_right', '-': 'split_down', h: 'focus_left', j: 'focus_down', k: 'focus_up', l: 'focus_right',
      x: 'close_pane', z: 'zoom', n: 'next_tab', p: 'prev_tab', '1': 'select_tab', '9': 'select_tab', N: 'new_workspace',
      w: 'workspace_switcher', g: 'next_attention', r: 'rename', s: 'toggle_scripting', '?': 'help', d: 'detach',
    };
    for (const [key, command] of Object.entries(expected)) expect(bindings.get(encodeKey(key)), key).toBe(command);
    for (const arrow of ['left', 'right', 'up', 'down']) {
      expect(bindings.get(encodeKey(arrow))).toBe(`focus_${arrow}`);
      expect(bindings.get(encodeKey(arrow, { applicationCursor: true }))).toBe(`focus_${arrow}`);
    }
    expect(bindings.get('\x02')).toBe('send_prefix');
  });

  it('documents every action id in docs/tui.md', () => {
    const docs = readFileSync(path.resolve(import.meta.dirname, '../../docs/tui.md'), 'utf8');
    for (const id of COMMAND_IDS) expect(docs, id).toContain(`\`${id}\``);
  });

  it('binds the living-in-it keys (SPEC §12) and marks only resizing repeatable', () => {
    const bindings = resolveBindings({}, 'ctrl+b');
    const expected: Record<string, string> = {
      H: 'resize_left', J: 'resize_down', K: 'resize_up', L: 'resize_right', ',': 'rename_tab', $: 'rename_workspace',
      ';': 'last_pane', o: 'next_pane', m: 'mute_pane',
    };
    for (const [key, command] of Object.entries(expected)) expect(bindings.get(key), key).toBe(command);
    expect(COMMAND_IDS.filter((id) => COMMANDS[id].repeatable).sort()).toEqual(['resize_down', 'resize_left', 'resize_right', 'resize_up']);
  });

  it('has no key bound to two commands', () => {
    const seen = new Map<string, string>();
    for (const id of COMMAND_IDS) {
      for (const key of COMMANDS[id].keys) {
        const bytes = encodeKey(key);
        expect(seen.get(bytes), `${key} bound to ${seen.get(bytes)} and ${id}`).toBeUndefined();
        seen.set(bytes, id);
      }
    }
  });

  it('lets [keys] overrides replace a command\u2019s keys, and help follows', () => {
    const bindings = resolveBindings({ split_right: '|' }, 'ctrl+a');
    expect(bindings.get('|')).toBe('split_right');
    expect(bindings.get('v')).toBeUndefined();
    expect(bindings.get('\x01')).toBe('send_prefix');
    const help = helpSections({ keyOverrides: { split_right: '|' }, prefixLabel: 'ctrl+a' });
    const panes = help.find((s) => s.category.startsWith('Panes'))!;
    expect(panes.category).toContain('ctrl+a');
    expect(panes.entries.find((e) => e.description.includes('right'))!.keys).toBe('|');
    const all = help.flatMap((s) => s.entries);
    expect(all).toHaveLength(COMMAND_IDS.length);
  });
});
