/**
 * The method table (src/contract/methods.ts) is the one list of methods: the server's handler
 * table must match it both ways, `system.capabilities` reports it, and docs/methods.md is
 * what the table renders to.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOOK_METHODS, METHOD_TABLE, METHODS, type MethodEntry } from '../../src/contract/protocol.js';
import { HANDLERS, METHOD_HANDLERS, checkHandlerTable } from '../../src/rpc/handlers/table.js';
import type { RequestContext } from '../../src/rpc/handlers/context.js';
import { renderMethodsDoc } from '../../scripts/methods-doc.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('the handler table', () => {
  it('has a handler for every method of the table and the hook notifications, and nothing else', () => {
    expect(Object.keys(HANDLERS).sort()).toEqual([...METHODS, ...HOOK_METHODS].sort());
    expect(() => checkHandlerTable(HANDLERS)).not.toThrow();
  });

  it('refuses a method without a handler and a handler without a table entry', () => {
    const { 'pane.run': _dropped, ...missing } = HANDLERS;
    expect(() => checkHandlerTable(missing)).toThrow(/no handler for pane\.run/);
    expect(() => checkHandlerTable({ ...HANDLERS, 'pane.teleport': () => ({}) })).toThrow(/handler for pane\.teleport with no entry in METHOD_TABLE/);
  });

  it('system.capabilities lists the table, in its order, with the gate state', async () => {
    const ctx = { core: { scripting: false } } as unknown as RequestContext;
    expect(await METHOD_HANDLERS['system.capabilities']({}, ctx)).toEqual({ scripting: false, methods: Object.keys(METHOD_TABLE) });
  });
});

describe('the table entries', () => {
  it('each has a one-line summary; only events.subscribe, the mirror stream and pane.watch', () => {
    for (const method of METHODS) {
      const entry: MethodEntry = METHOD_TABLE[method];
      expect(entry.summary, method).toMatch(/^\S.*\.$/);
      expect(entry.summary, method).not.toContain('\n');
    }
    expect(METHODS.filter((method) => (METHOD_TABLE[method] as MethodEntry).streams)).toEqual(['events.subscribe', 'mirror.subscribe', 'pane.watch']);
  });
});

describe('docs/methods.md', () => {
  it('is what the table renders to (regenerate: node scripts/gen-methods-doc.mjs)', () => {
    expect(readFileSync(path.join(root, 'docs/methods.md'), 'utf8')).toBe(renderMethodsDoc(root));
  });

  it('shows each method with its gating, params and result', () => {
    const doc = renderMethodsDoc(root);
    expect(doc).toContain('### `agent.prompt`');
    expect(doc).toContain('params: AgentTarget & { text: string; wait?: boolean; until?: UntilParam; timeout_ms?: number; max_tokens?: number }');
    expect(doc).toContain('result: SurfaceReadResult');
    expect(doc).toMatch(/### `surface\.send_text`[\s\S]*?gating: `when-submitting`[\s\S]*?inert while the gate is closed: `text`/);
    expect(doc).not.toContain('params: ?');
    expect(doc).not.toContain('result: ?');
  });
});
