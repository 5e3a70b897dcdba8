/**
 * `corral machine test NAME` (SPEC §14): one link's worth of ssh, once — connect as a link
 * would, ask the far side who it is, time three round trips, and say what went wrong in the
 * same words the link's `last_error` uses.
 */
import { spawn } from 'node:child_process';
import { Duplex } from 'node:stream';
import { CorralError, MACHINE_PROTOCOL } from '../contract/protocol.js';
import { RpcClient } from '../rpc/client.js';
import type { MachineEntry } from './machine-config.js';
import { explainFailure, LINK_TIMING, withDeadline } from './machine-link.js';
import { sshArgv } from './ssh-command.js';

/** Round trips timed; the result reports the best (what the link itself costs). */
const PINGS = 3;

export interface MachineTestResult {
  machine: string;
  target: string;
  remote_version: string;
  machine_protocol: number;
  compatible: boolean;
  rtt_ms: number;
  /** Time from starting ssh to the remote's answer (login included). */
  connect_ms: number;
}

export async function testMachine(entry: MachineEntry, program: readonly string[], runtimeDir: string): Promise<MachineTestResult> {
  const argv = sshArgv(entry, program, runtimeDir, ['bridge']);
  const started = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4096)));
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });
  const client = RpcClient.over(Duplex.from({ readable: child.stdout, writable: child.stdin }), `machine ${entry.name}`);
  try {
    const identify = client.request('system.identify', {}) as Promise<{ version: string; machine_protocol?: number }>;
    const failed = exited.then((code) => Promise.reject(new CorralError('machine_unreachable', explainFailure(entry, code, stderr), { machine: entry.name })));
    const identity = await withDeadline(Promise.race([identify, failed]), LINK_TIMING.handshakeMs, `${entry.target} did not answer within ${LINK_TIMING.handshakeMs / 1000} s`);
    const connectMs = performance.now() - started;
    let best = Infinity;
    for (let i = 0; i < PINGS; i++) {
      const t0 = performance.now();
      await withDeadline(client.request('system.ping', {}), LINK_TIMING.handshakeMs, 'ping');
      best = Math.min(best, performance.now() - t0);
    }
    return {
      machine: entry.name,
      target: entry.target,
      remote_version: identity.version,
      machine_protocol: identity.machine_protocol ?? 0,
      compatible: identity.machine_protocol === MACHINE_PROTOCOL,
      rtt_ms: Math.round(best * 100) / 100,
      connect_ms: Math.round(connectMs),
    };
  } finally {
    client.close();
    if (child.exitCode === null) child.kill('SIGTERM');
  }
}
