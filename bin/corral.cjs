#!/usr/bin/env node
// corral's launcher, CommonJS so Node skips its ES-module loader (~5 ms per start). The CLI is
// a CommonJS bundle started from a V8 code cache by dist/boot.cjs (see src/cli/boot.ts).
require('../dist/boot.cjs');
