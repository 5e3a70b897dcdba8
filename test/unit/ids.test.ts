import { describe, expect, it } from 'vitest';
import { IdAllocator, isPaneId, isSurfaceIdText, isTabId, isWorkspaceId, workspaceOf } from '../../src/session/ids.js';
import { CorralError } from '../../src/contract/protocol.js';

describe('IdAllocator', () => {
  it('hands out monotonic workspace, per-workspace tab/pane and global surface ids', () => {
    const ids = new IdAllocator();
    expect(ids.nextWorkspace()).toBe('w1');
    expect(ids.nextWorkspace()).toBe('w2');
    expect(ids.nextTab('w1')).toBe('w1:t1');
    expect(ids.nextTab('w1')).toBe('w1:t2');
    expect(ids.nextTab('w2')).toBe('w2:t1');
    expect(ids.nextPane('w1')).toBe('w1:p1');
    expect(ids.nextPane('w2')).toBe('w2:p1');
    expect(ids.nextPane('w1')).toBe('w1:p2');
    expect([ids.nextSurface(), ids.nextSurface(), ids.nextSurface()]).toEqual([1, 2, 3]);
  });

  it('never reuses ids, even across instances of use', () => {
    const ids = new IdAllocator();
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const w = ids.nextWorkspace();
      for (const id of [w, ids.nextTab(w), ids.nextPane(w), ids.nextPane('w1')]) {
        expect(seen.has(id)).toBe(false);
        seen.add(id);
      }
    }
  });

  it('rejects a non-workspace id', () => {
    const ids = new IdAllocator();
    expect(() => ids.nextTab('w1:t1')).toThrow(CorralError);
    expect(() => ids.nextPane('x')).toThrow(/not a workspace id/);
  });
});

describe('id parsing', () => {
  it('recognises each kind', () => {
    expect(isWorkspaceId('w1')).toBe(true);
    expect(isWorkspaceId('w0')).toBe(false);
    expect(isWorkspaceId('w01')).toBe(false);
    expect(isWorkspaceId('w1:t1')).toBe(false);
    expect(isTabId('w12:t3')).toBe(true);
    expect(isTabId('w1:p3')).toBe(false);
    expect(isPaneId('w2:p10')).toBe(true);
    expect(isPaneId('w2:p')).toBe(false);
    expect(isPaneId('W2:P1')).toBe(false);
    expect(isSurfaceIdText('12')).toBe(true);
    expect(isSurfaceIdText('012')).toBe(false);
    expect(isSurfaceIdText('0')).toBe(false);
  });

  it('workspaceOf', () => {
    expect(workspaceOf('w3')).toBe('w3');
    expect(workspaceOf('w3:t1')).toBe('w3');
    expect(workspaceOf('w3:p9')).toBe('w3');
    expect(workspaceOf('p9')).toBeNull();
    expect(workspaceOf('w3:x1')).toBeNull();
  });
});
