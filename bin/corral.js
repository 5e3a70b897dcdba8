#!/usr/bin/env node
// corral's launcher. The CLI is a CommonJS bundle started from a V8 code cache by dist/boot.cjs
// (see src/cli/boot.ts for why); the server and TUI are ESM chunks it imports on demand.
import { createRequire } from 'node:module';

createRequire(import.meta.url)('../dist/boot.cjs');
