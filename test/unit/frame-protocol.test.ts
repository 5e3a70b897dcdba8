/** The attached client's binary framing (src/contract/frame-protocol.ts, docs/clients.md). */
import fc from 'fast-check';
import { once } from 'node:events';
import { mkdtempSync, readSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLIENT_PROTOCOL_VERSION, HEADER_BYTES, MAX_MESSAGE_BYTES, MAX_TERMINAL_CELLS, MAX_TERMINAL_SIDE, MSG, MessageReader, exitPayload, fitTerminalSize, header, message, readExit, readResize, resizePayload, writeMessage } from '../../src/contract/frame-protocol.js';
import { matchClientArgs } from '../../src/client/client-main.js';
import { detectCapabilities } from '../../src/client/capabilities.js';
import { parseHello } from '../../src/rpc/handlers/clients.js';

describe('MessageReader', () => {
  it('gives back every message whatever the chunking (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ type: fc.integer({ min: 0, max: 255 }), payload: fc.uint8Array({ maxLength: 300 }) }), { maxLength: 20 }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 50 }),
        (messages, cuts) => {
          const stream = Buffer.concat(messages.map((m) => message(m.type, Buffer.from(m.payload))));
          const reader = new MessageReader();
          const got: { type: number; payload: number[] }[] = [];
          let at = 0;
          for (let i = 0; at < stream.length; i++) {
            const size = cuts[i % cuts.length]!;
            for (const m of reader.push(stream.subarray(at, at + size))) got.push({ type: m.type, payload: [...m.payload] });
            at += size;
          }
          expect(got).toEqual(messages.map((m) => ({ type: m.type, payload: [...m.payload] })));
        },
      ),
    );
  });

  it('hands out a message that arrived whole as a view of the chunk, not a copy', () => {
    const chunk = Buffer.concat([header(MSG.output, 3), Buffer.from('abc'), header(MSG.output, 2), Buffer.from('de')]);
    const [first, second] = new MessageReader().push(chunk);
    expect(first!.payload.buffer).toBe(chunk.buffer);
    expect(second!.payload.toString()).toBe('de');
    expect(first!.payload.byteOffset).toBe(chunk.byteOffset + HEADER_BYTES);
  });

  it('refuses a length over the limit instead of waiting for it', () => {
    expect(() => new MessageReader().push(header(MSG.input, MAX_MESSAGE_BYTES + 1))).toThrow(/limit/);
  });

  it('round-trips resize and exit payloads, and rejects a zero size', () => {
    expect(readResize(resizePayload(300, 80))).toEqual({ cols: 300, rows: 80 });
    // A client cannot make the server allocate a 65535×65535 screen, nor a 2000×2000 one.
    expect(readResize(Buffer.from([0xff, 0xff, 0xff, 0xff]))).toEqual({ cols: 500, rows: 500 });
    expect(readResize(resizePayload(2000, 500))).toEqual({ cols: 1000, rows: 250 });
    expect(readResize(resizePayload(0, 10))).toEqual({ cols: 1, rows: 10 });
    expect(readResize(Buffer.from([0, 0, 0, 5]))).toBeNull();
    expect(readResize(Buffer.from([1, 2, 3]))).toBeNull();
    expect(readExit(exitPayload(1, 'gone — bye'))).toEqual({ code: 1, text: 'gone — bye' });
  });
});

describe('fitTerminalSize', () => {
  it('keeps every real size, and draws a larger claim within the bounds at its aspect', () => {
    expect(fitTerminalSize(480, 135)).toEqual({ cols: 480, rows: 135 });
    expect(fitTerminalSize(MAX_TERMINAL_SIDE, 100)).toEqual({ cols: MAX_TERMINAL_SIDE, rows: 100 });
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 70_000 }), fc.integer({ min: -5, max: 70_000 }), (cols, rows) => {
        const fit = fitTerminalSize(cols, rows);
        const claim = { cols: Math.max(1, Math.min(MAX_TERMINAL_SIDE, cols)), rows: Math.max(1, Math.min(MAX_TERMINAL_SIDE, rows)) };
        expect(fit.cols * fit.rows).toBeLessThanOrEqual(MAX_TERMINAL_CELLS);
        expect(fit.cols).toBeGreaterThanOrEqual(1);
        expect(fit.rows).toBeGreaterThanOrEqual(1);
        expect(fit.cols).toBeLessThanOrEqual(claim.cols);
        expect(fit.rows).toBeLessThanOrEqual(claim.rows);
        if (claim.cols * claim.rows <= MAX_TERMINAL_CELLS) expect(fit).toEqual(claim);
        // Scaled, not cut to a sliver: the aspect stays within a cell's rounding.
        else expect(Math.abs(fit.cols / fit.rows - claim.cols / claim.rows)).toBeLessThan((claim.cols / claim.rows) * 0.05 + 1 / fit.rows + 0.01);
      }),
      { seed: 42, numRuns: 2000 },
    );
  });
});

describe('writeMessage', () => {
  it('hands a message to the kernel before it returns, not at the end of the tick', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corral-frame-'));
    const server = createServer();
    try {
      const accepted = once(server, 'connection') as Promise<[Socket]>;
      server.listen(join(dir, 's'));
      await once(server, 'listening');
      const writer = connect(join(dir, 's'));
      await once(writer, 'connect');
      const [reader] = await accepted;
      // The peer does not read through Node; the test reads its fd itself, within this tick.
      reader.pause();
      const fd = (reader as unknown as { _handle: { fd: number } })._handle.fd;
      const echo = Buffer.from('x');
      const frame = Buffer.from('\x1b[?2026h\x1b[3;4Hyz\x1b[?2026l');
      writeMessage(writer, MSG.output, echo);
      writeMessage(writer, MSG.output, frame);
      // Nothing left in Node's buffers: both messages are already in the socket (one writev each).
      expect(writer.writableLength).toBe(0);
      const got = Buffer.alloc(256);
      const n = readSync(fd, got, 0, got.length, null);
      const messages = new MessageReader().push(got.subarray(0, n));
      expect(messages.map((m) => [m.type, m.payload.toString()])).toEqual([
        [MSG.output, 'x'],
        [MSG.output, frame.toString()],
      ]);
      writer.destroy();
      reader.destroy();
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the client entry', () => {
  it('takes `corral` and `corral attach` with at most --session/--socket, nothing else', () => {
    expect(matchClientArgs([])).toEqual({ attach: false });
    expect(matchClientArgs(['attach', '--session', 'work'])).toEqual({ attach: true, session: 'work' });
    expect(matchClientArgs(['--socket=/tmp/x.sock'])).toEqual({ attach: false, socket: '/tmp/x.sock' });
    expect(matchClientArgs(['attach', '--help'])).toBeNull();
    expect(matchClientArgs(['--session'])).toBeNull();
    expect(matchClientArgs(['--session', 'a', '--session', 'b'])).toBeNull();
    expect(matchClientArgs(['ps'])).toBeNull();
  });

  it("reads the terminal's capabilities from the client's own environment", () => {
    expect(detectCapabilities({ TERM: 'xterm-256color', COLORTERM: 'truecolor' })).toMatchObject({ truecolor: true, mouse: true, synchronizedOutput: true });
    expect(detectCapabilities({ TERM: 'xterm-256color' })).toMatchObject({ truecolor: false, colors: 256 });
    expect(detectCapabilities({ TERM: 'linux' })).toMatchObject({ mouse: false, osc52: false, notifications: false, colors: 16 });
  });

  it('takes the colour depth from the hello, refuses one it does not know, and reads an older hello by truecolor', () => {
    const hello = (capabilities: object) => parseHello({ protocol: CLIENT_PROTOCOL_VERSION, cols: 80, rows: 24, capabilities });
    expect(hello({ truecolor: false, colors: 16 }).capabilities).toMatchObject({ truecolor: false, colors: 16 });
    expect(hello({ truecolor: false }).capabilities.colors).toBe(256);
    expect(hello({}).capabilities).toMatchObject({ truecolor: true, colors: 16777216 });
    expect(() => hello({ colors: 88 })).toThrow(/capabilities.colors/);
    expect(() => hello({ colors: '256' })).toThrow(/capabilities.colors/);
  });
});
