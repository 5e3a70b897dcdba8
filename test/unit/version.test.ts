/** corral's version and its Node floor, as src/version.ts states them, agree with package.json. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { atLeast, MIN_NODE, VERSION } from '../../src/version.js';

const manifest = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string; engines: { node: string } };

describe('version', () => {
  it('VERSION is package.json\'s version and MIN_NODE its engines floor', () => {
    expect(VERSION).toBe(manifest.version);
    expect(manifest.engines.node).toBe(`>=${MIN_NODE.join('.')}`);
  });

  it('atLeast compares major, then minor; a patch never matters', () => {
    expect(atLeast('20.19.0', [20, 19])).toBe(true);
    expect(atLeast('20.20.2', [20, 19])).toBe(true);
    expect(atLeast('22.0.0', [20, 19])).toBe(true);
    expect(atLeast('20.18.9', [20, 19])).toBe(false);
    expect(atLeast('19.99.0', [20, 19])).toBe(false);
    expect(atLeast('2.39.5', [2, 38])).toBe(true);
    expect(atLeast('2.37', [2, 38])).toBe(false);
  });
});
