import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { enforceGate, textsAt, withGate } from '../../src/rpc/gate.js';
import { CorralError, HOOK_METHODS, METHOD_TABLE, METHODS, methodSpec } from '../../src/contract/protocol.js';
import { controlName, firstControl, visibleControls } from '../../src/terminal/control-chars.js';
import { bracketedPaste, PASTE_END, PASTE_START, stripPasteMarkers } from '../../src/terminal/paste.js';
import { shellQuote } from '../../src/actions/agent-actions.js';

function refusal(fn: () => void): CorralError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CorralError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

/** Every C0 control but TAB, DEL and every C1 control. */
const REFUSED = [...Array.from({ length: 0x20 }, (_, i) => i).filter((c) => c !== 0x09), 0x7f, ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i)];

describe('control characters', () => {
  it('names each the way people know it', () => {
    expect(controlName(0x0f)).toBe('U+000F (ctrl+O)');
    expect(controlName(0x15)).toBe('U+0015 (ctrl+U)');
    expect(controlName(0x0d)).toBe('U+000D (CR, ctrl+M)');
    expect(controlName(0x0a)).toBe('U+000A (LF, ctrl+J)');
    expect(controlName(0x1b)).toBe('U+001B (ESC)');
    expect(controlName(0x00)).toBe('U+0000 (NUL, ctrl+@)');
    expect(controlName(0x7f)).toBe('U+007F (DEL)');
    expect(controlName(0x9b)).toBe('U+009B (C1 CSI)');
    expect(controlName(0x81)).toBe('U+0081 (C1 control)');
  });

  it('makes every control visible and leaves other text alone', () => {
    expect(visibleControls('a\x1b]52;c;eA==\x07b\x1b[2J')).toBe('a^[]52;c;eA==^Gb^[[2J');
    expect(visibleControls('\x9b31m\x7f\t\n')).toBe('\\x9b31m^?^I^J');
    expect(visibleControls('héllo 世界 ✓')).toBe('héllo 世界 ✓');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(firstControl(visibleControls(text), { allowTab: false })).toBeNull();
      }),
    );
  });
});

describe('the gate (enforceGate)', () => {
  it('refuses every C0 control but TAB, DEL and every C1 in ungated text, naming the character', () => {
    for (const codePoint of REFUSED) {
      const char = String.fromCharCode(codePoint);
      const error = refusal(() => enforceGate('pane.send_text', { pane_id: 'p', text: `ls${char}x` }, false));
      expect(error.code).toBe('scripting_disabled');
      expect(error.message).toContain(controlName(codePoint));
      expect(error.data).toMatchObject({ param: 'text', index: 2 });
    }
    expect(() => enforceGate('pane.send_text', { pane_id: 'p', text: 'printable\tand tab, ünïcode 世界' }, false)).not.toThrow();
  });

  it('allows the same text with the gate open', () => {
    expect(() => enforceGate('pane.send_text', { text: 'ls\r' }, true)).not.toThrow();
    expect(() => enforceGate('pane.run', { command: 'ls' }, true)).not.toThrow();
  });

  it('gates agent.start only for a generic kind, whose command the caller names', () => {
    expect(refusal(() => enforceGate('agent.start', { pane_id: 'p', kind: 'generic', args: ['rm', '-rf', '/'] }, false)).code).toBe('scripting_disabled');
    expect(() => enforceGate('agent.start', { pane_id: 'p', kind: 'claude', args: ['--model', 'x'] }, false)).not.toThrow();
    expect(() => enforceGate('agent.start', { pane_id: 'p', kind: 'generic', args: ['mycli'] }, true)).not.toThrow();
  });

  it('gates surface.send_text only when submitting, and its typed text must be inert', () => {
    expect(refusal(() => enforceGate('surface.send_text', { text: 'ls', submit: true }, false)).code).toBe('scripting_disabled');
    expect(() => enforceGate('surface.send_text', { text: 'ls', submit: false }, false)).not.toThrow();
    expect(refusal(() => enforceGate('surface.send_text', { text: 'ls\x0f' }, false)).message).toContain('U+000F (ctrl+O)');
  });

  it('checks names, labels and nested up-file text', () => {
    expect(refusal(() => enforceGate('pane.rename', { name: 'a\x1b]0;x\x07' }, false)).data).toMatchObject({ param: 'name', character: 'U+001B' });
    expect(refusal(() => enforceGate('workspace.create', { label: '\x9b2J' }, false)).data).toMatchObject({ param: 'label' });
    const up = { panes: [{ name: 'a' }, { agent: 'claude', prompt: 'hi\rrm -rf ~' }] };
    expect(refusal(() => enforceGate('workspace.up', up, false)).data).toMatchObject({ param: 'panes[1].prompt', index: 2 });
  });

  it('refuses a control or TAB in agent.start args whatever the gate, TAB included', () => {
    const closed = refusal(() => enforceGate('agent.start', { kind: 'claude', pane_id: 'p', args: ['--model', 'x\x15rm -rf ~'] }, false));
    expect(closed.code).toBe('scripting_disabled');
    expect(closed.data).toMatchObject({ param: 'args[1]', character: 'U+0015' });
    expect(refusal(() => enforceGate('agent.start', { args: ['a\tb'] }, true)).code).toBe('invalid_params');
    expect(() => enforceGate('agent.start', { args: ["it's \\ $HOME `x` ; !"] }, false)).not.toThrow();
  });

  it('refuses every submitting method in the table while closed, and allows every read', () => {
    for (const method of METHODS) {
      const spec = METHOD_TABLE[method];
      if (spec.gated === 'always') expect(refusal(() => enforceGate(method, {}, false)).code, method).toBe('scripting_disabled');
      else expect(() => enforceGate(method, {}, false), method).not.toThrow();
    }
  });

  it('will not wrap a handler whose method the table does not declare', () => {
    expect(() => withGate({ 'pane.frobnicate': () => null })).toThrow(/no gating/);
    for (const method of HOOK_METHODS) expect(methodSpec(method)?.gated).toBe('by-peer');
  });

  it('finds strings along a param path', () => {
    expect(textsAt({ args: ['a', 1, 'b'] }, 'args')).toEqual([
      { param: 'args[0]', value: 'a' },
      { param: 'args[2]', value: 'b' },
    ]);
    expect(textsAt({ panes: [{ prompt: 'x' }, {}, 'junk'] }, 'panes.*.prompt')).toEqual([{ param: 'panes[0].prompt', value: 'x' }]);
    expect(textsAt({ text: 5 }, 'text')).toEqual([]);
  });
});

describe('bracketed paste framing', () => {
  it('strips markers until none is left, so a split end marker cannot reassemble', () => {
    const split = `a\x1b[20${PASTE_END}1~; touch /tmp/pwned`;
    expect(stripPasteMarkers(split)).toBe('a; touch /tmp/pwned');
    expect(stripPasteMarkers('\x1b[2\x1b[20\x1b[201~1~01~x')).toBe('x');
    expect(stripPasteMarkers('\x9b201~y\x9b200~')).toBe('y');
  });

  it('never lets a paste end before its real end marker (property)', () => {
    const piece = fc.constantFrom('\x1b', '[', '2', '0', '1', '~', '\x9b', PASTE_END, PASTE_START, 'x', ';');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const framed = bracketedPaste(pieces.join(''));
        const body = framed.slice(PASTE_START.length, -PASTE_END.length);
        expect(body).not.toMatch(/(\x1b\[|\x9b)20[01]~/);
      }),
    );
  });
});

describe('shellQuote', () => {
  const shells = ['bash', 'dash'].filter((shell) => {
    try {
      execFileSync(shell, ['-c', 'true']);
      return true;
    } catch {
      return false;
    }
  });

  it('gives every printable argument back as one word to the shell', () => {
    const args = ["it's", 'a\\b', "\\'", '$(touch x)', '`id`', 'a b;c|d&e', '', '!!', '*', '~', '-n', '"q"', '\\', "'"];
    for (const shell of shells) {
      const out = execFileSync(shell, ['-c', `for a in ${args.map(shellQuote).join(' ')}; do printf '[%s]' "$a"; done`]).toString();
      expect(out, shell).toBe(args.map((a) => `[${a}]`).join(''));
    }
  });
});
