/**
 * The TUI's key handling as a pure transition (src/tui/key-routes.ts): mode × input → the
 * step the controller applies. `drive` plays the controller's part with a recording of
 * what it would do, so a sequence of keys reads as the actions it causes.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { overlayKey, REPEAT_MS, routeInput, type InputMode, type InputRoute, type KeyMap } from '../../src/tui/key-routes.js';
import { resolveBindings } from '../../src/tui/keybindings.js';
import { encodeKey } from '../../src/terminal/keys.js';
import type { OverlayState } from '../../src/tui/chrome-builder.js';

const KEYS: KeyMap = { prefixBytes: '\x02', bindings: resolveBindings({}, 'ctrl+b') };
const NORMAL: InputMode = { overlay: false, prefixActive: false, repeatUntil: 0, copyMode: false };

/** What the controller did, step by step. */
type Done = { pane: string } | { command: string | null; key: string } | 'prefix' | { overlay: string } | { copy: string } | 'end-repeat';

/**
 * Routes `input` to the end as the controller does: a command leaves prefix mode and sets the
 * repeat window; `copyTakes` says how much of the keys copy mode consumes before it leaves
 * (the rest is handed back), by default all of them.
 */
function drive(input: string, start: Partial<InputMode> = {}, now = 1000, copyTakes?: (keys: string) => number): { done: Done[]; mode: InputMode } {
  const mode: InputMode = { ...NORMAL, ...start };
  const done: Done[] = [];
  let rest = input;
  for (let guard = 0; rest.length > 0; guard++) {
    if (guard > 1000) throw new Error('routing does not progress');
    const step = routeInput(mode, rest, now, KEYS);
    rest = step.rest;
    const route: InputRoute = step.route;
    switch (route.kind) {
      case 'overlay':
        done.push({ overlay: route.key });
        break;
      case 'command':
        mode.prefixActive = false;
        mode.repeatUntil = route.repeatUntil;
        done.push({ command: route.command, key: route.key });
        break;
      case 'end-repeat':
        mode.repeatUntil = 0;
        done.push('end-repeat');
        break;
      case 'prefix':
        mode.prefixActive = true;
        done.push('prefix');
        break;
      case 'copy': {
        const taken = copyTakes ? copyTakes(route.keys) : route.keys.length;
        done.push({ copy: route.keys.slice(0, taken) });
        if (taken < route.keys.length) mode.copyMode = false;
        rest = route.keys.slice(taken) + rest;
        break;
      }
      case 'pane':
        done.push({ pane: route.data });
        break;
    }
  }
  return { done, mode };
}

/** Input with no prefix byte in it. */
const noPrefix = fc.string({ unit: 'binary', minLength: 1 }).filter((s) => !s.includes(KEYS.prefixBytes));

describe('routeInput: normal mode', () => {
  it('passes any input without the prefix to the pane whole and byte-exact, in one step', () => {
    fc.assert(
      fc.property(noPrefix, (input) => {
        const step = routeInput(NORMAL, input, 0, KEYS);
        expect(step).toEqual({ route: { kind: 'pane', data: input }, rest: '' });
      }),
    );
  });

  it('splits around the prefix: bytes before it to the pane, then prefix mode, and the key after it is a command', () => {
    expect(drive('ls\x02c').done).toEqual([{ pane: 'ls' }, 'prefix', { command: 'new_tab', key: 'c' }]);
    expect(drive('\x02').done).toEqual(['prefix']);
    expect(drive('\x02').mode.prefixActive).toBe(true);
  });

  it('runs exactly one key after the prefix; what follows goes to the pane', () => {
    expect(drive('\x02zecho\r').done).toEqual(['prefix', { command: 'zoom', key: 'z' }, { pane: 'echo\r' }]);
  });

  it('keeps everything but the commands: pane bytes around any number of prefix commands arrive in order', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(noPrefix, fc.constantFrom('c', 'z', 'v', '-', 'n', 'x'))), noPrefix, (parts, tail) => {
        const input = parts.map(([text, key]) => `${text}\x02${key}`).join('') + tail;
        const { done } = drive(input);
        const sent = done.flatMap((d) => (typeof d === 'object' && 'pane' in d ? [d.pane] : [])).join('');
        expect(sent).toBe(parts.map(([text]) => text).join('') + tail);
        expect(done.filter((d) => typeof d === 'object' && 'command' in d)).toHaveLength(parts.length);
      }),
    );
  });

  it('takes a whole escape sequence after the prefix as one key (arrows, in both cursor modes)', () => {
    expect(drive('\x02\x1b[D').done).toEqual(['prefix', { command: 'focus_left', key: '\x1b[D' }]);
    expect(drive('\x02\x1bOA').done).toEqual(['prefix', { command: 'focus_up', key: '\x1bOA' }]);
  });

  it('reports an unbound key after the prefix as a command of null, and leaves prefix mode', () => {
    const { done, mode } = drive('\x02Q');
    expect(done).toEqual(['prefix', { command: null, key: 'Q' }]);
    expect(mode.prefixActive).toBe(false);
  });

  it('sends the prefix itself with prefix prefix (send_prefix), never as a pane byte on its own', () => {
    expect(drive('\x02\x02').done).toEqual(['prefix', { command: 'send_prefix', key: '\x02' }]);
  });

  it('honours a configured prefix and overrides', () => {
    const keys: KeyMap = { prefixBytes: encodeKey('ctrl+a'), bindings: resolveBindings({ zoom: 'Z' }, 'ctrl+a') };
    expect(routeInput(NORMAL, '\x02', 0, keys).route).toEqual({ kind: 'pane', data: '\x02' });
    expect(routeInput(NORMAL, '\x01', 0, keys).route).toEqual({ kind: 'prefix' });
    const after = routeInput({ ...NORMAL, prefixActive: true }, 'Z', 0, keys).route;
    expect(after).toMatchObject({ kind: 'command', command: 'zoom' });
    expect(routeInput({ ...NORMAL, prefixActive: true }, 'z', 0, keys).route).toMatchObject({ command: null });
  });
});

describe('routeInput: the repeat window', () => {
  it('opens for REPEAT_MS after a repeatable command, and only for one', () => {
    expect(routeInput({ ...NORMAL, prefixActive: true }, 'H', 5000, KEYS).route).toEqual({ kind: 'command', key: 'H', command: 'resize_left', repeatUntil: 5000 + REPEAT_MS });
    expect(routeInput({ ...NORMAL, prefixActive: true }, 'z', 5000, KEYS).route).toEqual({ kind: 'command', key: 'z', command: 'zoom', repeatUntil: 0 });
  });

  it('runs repeatable keys without the prefix inside the window, each one extending it', () => {
    const { done, mode } = drive('\x02HJJL', {}, 1000);
    expect(done).toEqual([
      'prefix',
      { command: 'resize_left', key: 'H' },
      { command: 'resize_down', key: 'J' },
      { command: 'resize_down', key: 'J' },
      { command: 'resize_right', key: 'L' },
    ]);
    expect(mode.repeatUntil).toBe(1000 + REPEAT_MS);
  });

  it('ends on a key that does not repeat, which then goes where it would have gone', () => {
    expect(drive('\x02Hx', {}, 1000).done).toEqual(['prefix', { command: 'resize_left', key: 'H' }, 'end-repeat', { pane: 'x' }]);
    // A bound but not repeatable command key is not run without the prefix.
    expect(drive('z', { repeatUntil: 2000 }, 1000).done).toEqual(['end-repeat', { pane: 'z' }]);
    expect(drive('\x02', { repeatUntil: 2000 }, 1000).done).toEqual(['end-repeat', 'prefix']);
  });

  it('ends once its time is up, even for a repeatable key', () => {
    expect(drive('H', { repeatUntil: 1500 }, 1500).done).toEqual(['end-repeat', { pane: 'H' }]);
    expect(drive('H', { repeatUntil: 1500 }, 1499).done).toEqual([{ command: 'resize_left', key: 'H' }]);
  });
});

describe('routeInput: overlays and copy mode', () => {
  it('gives an open overlay every key, one at a time, the prefix included', () => {
    expect(drive('ab\x02\x1b[A', { overlay: true }).done).toEqual([{ overlay: 'a' }, { overlay: 'b' }, { overlay: '\x02' }, { overlay: '\x1b[A' }]);
  });

  it('the overlay outranks prefix mode and the repeat window', () => {
    expect(routeInput({ overlay: true, prefixActive: true, repeatUntil: 9e9, copyMode: true }, 'H', 0, KEYS).route).toEqual({ kind: 'overlay', key: 'H' });
  });

  it('gives copy mode the keys up to the prefix; the prefix still works in copy mode', () => {
    expect(drive('jjk\x02z', { copyMode: true }).done).toEqual([{ copy: 'jjk' }, 'prefix', { command: 'zoom', key: 'z' }]);
  });

  it('hands what copy mode gives back (it left) on to the pane', () => {
    // Copy mode takes "jq" (q leaves it); "ls" then goes to the pane.
    const { done, mode } = drive('jqls', { copyMode: true }, 0, (keys) => Math.min(keys.length, 2));
    expect(done).toEqual([{ copy: 'jq' }, { pane: 'ls' }]);
    expect(mode.copyMode).toBe(false);
  });

  it('enters copy mode with prefix [ and pastes the buffer with prefix ]', () => {
    expect(drive('\x02[').done).toEqual(['prefix', { command: 'copy_mode', key: '[' }]);
    expect(drive('\x02]').done).toEqual(['prefix', { command: 'paste_buffer', key: ']' }]);
  });

  it('in copy mode no input reaches the pane until copy mode hands it back', () => {
    fc.assert(
      fc.property(noPrefix, (input) => {
        const { done } = drive(input, { copyMode: true });
        expect(done).toEqual([{ copy: input }]);
      }),
    );
  });
});

const CONTEXT = { prefixBytes: '\x02', workspaces: 3 };

describe('overlayKey', () => {
  it('help closes on any key', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (key) => {
        expect(overlayKey({ kind: 'help' }, key, CONTEXT)).toEqual({ kind: 'close', then: null });
      }),
    );
  });

  describe('confirm', () => {
    const confirm: OverlayState = { kind: 'confirm', question: 'Quit?', onYes: () => {} };
    it('y or Y confirms', () => {
      for (const key of ['y', 'Y']) expect(overlayKey(confirm, key, CONTEXT)).toEqual({ kind: 'close', then: { kind: 'confirmed' } });
    });
    it('n, N, q, esc, ctrl+c and the prefix decline', () => {
      for (const key of ['n', 'N', 'q', '\x1b', '\x03', '\x02']) expect(overlayKey(confirm, key, CONTEXT), JSON.stringify(key)).toEqual({ kind: 'close', then: null });
    });
    it('ignores every other key rather than guessing', () => {
      fc.assert(
        fc.property(fc.string({ minLength: 1, maxLength: 4 }).filter((k) => !['y', 'Y', 'n', 'N', 'q', '\x1b', '\x03', '\x02'].includes(k)), (key) => {
          expect(overlayKey(confirm, key, CONTEXT)).toEqual({ kind: 'ignore' });
        }),
      );
    });
  });

  describe('workspace switcher', () => {
    const at = (selected: number): OverlayState => ({ kind: 'workspace-switcher', selected });
    it('moves the selection with j/k and the arrows, wrapping', () => {
      expect(overlayKey(at(0), 'j', CONTEXT)).toEqual({ kind: 'update', overlay: at(1) });
      expect(overlayKey(at(2), '\x1b[B', CONTEXT)).toEqual({ kind: 'update', overlay: at(0) });
      expect(overlayKey(at(0), 'k', CONTEXT)).toEqual({ kind: 'update', overlay: at(2) });
      expect(overlayKey(at(1), '\x1bOA', CONTEXT)).toEqual({ kind: 'update', overlay: at(0) });
    });
    it('enter focuses the selected workspace; a digit focuses that one', () => {
      expect(overlayKey(at(1), '\r', CONTEXT)).toEqual({ kind: 'close', then: { kind: 'focus-workspace', index: 1 } });
      expect(overlayKey(at(0), '3', CONTEXT)).toEqual({ kind: 'close', then: { kind: 'focus-workspace', index: 2 } });
    });
    it('a digit past the last workspace does nothing; enter on a vanished one just closes', () => {
      expect(overlayKey(at(0), '4', CONTEXT)).toEqual({ kind: 'ignore' });
      expect(overlayKey(at(2), '\r', { ...CONTEXT, workspaces: 2 })).toEqual({ kind: 'close', then: null });
    });
    it('esc, q and the prefix close it', () => {
      for (const key of ['\x1b', 'q', '\x02']) expect(overlayKey(at(1), key, CONTEXT)).toEqual({ kind: 'close', then: null });
    });
    it('the selection stays in range whatever keys come, however many workspaces there are', () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 12 }), fc.array(fc.constantFrom('j', 'k', '\x1b[A', '\x1b[B', 'x')), (count, keys) => {
          let overlay = at(0);
          for (const key of keys) {
            const outcome = overlayKey(overlay, key, { ...CONTEXT, workspaces: count });
            if (outcome.kind === 'update') overlay = outcome.overlay as typeof overlay;
          }
          expect(overlay.kind === 'workspace-switcher' && overlay.selected >= 0 && overlay.selected < count).toBe(true);
        }),
      );
    });
  });

  describe('rename', () => {
    const prompt = (value: string): OverlayState => ({ kind: 'rename', target: { kind: 'tab', id: 'tab:1' }, value });
    it('types printable keys, backspace drops one character (a whole emoji), ctrl+u clears', () => {
      expect(overlayKey(prompt('ab'), 'c', CONTEXT)).toEqual({ kind: 'update', overlay: prompt('abc') });
      expect(overlayKey(prompt('a😀'), '\x7f', CONTEXT)).toEqual({ kind: 'update', overlay: prompt('a') });
      expect(overlayKey(prompt('ab'), '\b', CONTEXT)).toEqual({ kind: 'update', overlay: prompt('a') });
      expect(overlayKey(prompt('abc'), '\x15', CONTEXT)).toEqual({ kind: 'update', overlay: prompt('') });
    });
    it('ignores control keys and escape sequences in the name', () => {
      for (const key of ['\x01', '\x1b[A', '\x1bx', '\t']) expect(overlayKey(prompt('ab'), key, CONTEXT), JSON.stringify(key)).toEqual({ kind: 'update', overlay: prompt('ab') });
    });
    it('enter applies the typed name to its target, esc drops it', () => {
      expect(overlayKey(prompt('new'), '\r', CONTEXT)).toEqual({ kind: 'close', then: { kind: 'rename', target: { kind: 'tab', id: 'tab:1' }, value: 'new' } });
      expect(overlayKey(prompt('new'), '\x1b', CONTEXT)).toEqual({ kind: 'close', then: null });
    });
    it('typing then erasing as many characters gives the name back', () => {
      fc.assert(
        fc.property(fc.string(), fc.array(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }).filter((k) => k >= ' ' && k !== '\x7f')), (start, typed) => {
          let overlay = prompt(start);
          for (const key of [...typed, ...typed.map(() => '\x7f')]) {
            const outcome = overlayKey(overlay, key, CONTEXT);
            if (outcome.kind === 'update') overlay = outcome.overlay;
          }
          expect(overlay).toEqual(prompt(start));
        }),
      );
    });
  });
});
