#!/usr/bin/env node
/**
 * Installs the pinned real agents for the live tests into .cache/agents (once; ~1 GB).
 * These exact versions are the ones known to work offline against corral's scripted model
 * (test/agents/model); newer ones change their screens (docs/agent-rules.md).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.join(root, '.cache', 'agents');
const PINNED = [
  '@anthropic-ai/claude-code@2.1.197',
  '@google/gemini-cli@0.61.0',
  '@openai/codex@0.171.0',
  '@qwen-code/qwen-code@0.24.4',
  '@mariozechner/pi-coding-agent@0.73.1',
  // 7.8.1 has no linux binary package on the registry; 7.7.7 has
  '@kilocode/cli@7.7.7',
  'opencode-ai@1.18.33',
];
const BINS = ['claude', 'gemini', 'codex', 'qwen', 'pi', 'kilo', 'opencode'];

if (BINS.every((bin) => existsSync(path.join(dir, 'node_modules', '.bin', bin)))) process.exit(0);
process.stderr.write(`installing ${PINNED.join(', ')} into ${dir} …\n`);
execFileSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', ...PINNED], { stdio: 'inherit' });
