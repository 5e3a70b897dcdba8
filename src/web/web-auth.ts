/**
 * Who may see the fleet (SPEC §16). `corral web` prints a one-time token (256 random bits) in
 * a URL's fragment — a fragment never reaches a server, a log or a Referer — the page posts it
 * once and gets a session cookie (`HttpOnly`: no script reads it; `SameSite=Strict`: no other
 * site's request carries it; `Secure` under TLS; 12 h). Every data request and the WebSocket
 * must then carry the cookie and come from this server's own origin: a page elsewhere (or a
 * DNS name rebound to this address) gets 403, a request without a live session 401, and
 * nothing else.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { SessionStore } from './session-store.js';
import { SESSION_LIMITS } from './session-store.js';

export const COOKIE_NAME = 'corral_web';

/** The session cookie's value from a Cookie header, if any. */
export function cookieFrom(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === COOKIE_NAME) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The Set-Cookie header of a new session. */
export function sessionCookie(value: string, secure: boolean): string {
  return `${COOKIE_NAME}=${value}; Path=/; Max-Age=${SESSION_LIMITS.maxAgeMs / 1000}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** The token printed at start: good for exactly one exchange. */
export class LoginToken {
  private used = false;

  constructor(private readonly secret: string) {}

  /** True once, for the right token; every later try (right or wrong) is false. */
  exchange(candidate: unknown): boolean {
    if (this.used || typeof candidate !== 'string') return false;
    const a = Buffer.from(candidate);
    const b = Buffer.from(this.secret);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return false;
    this.used = true;
    return true;
  }
}

export type Verdict = 'ok' | 'unauthorized' | 'forbidden';

export interface OriginPolicy {
  /** `http` or `https`. */
  scheme: string;
  /**
   * The Host values this server answers to (`127.0.0.1:8760`, `localhost:8760`), or null when
   * it listens on every address (TLS only): then the Origin must match the Host it was sent to.
   */
  hosts: ReadonlySet<string> | null;
}

/** Checks requests against the origin policy and the session store. */
export class RequestGuard {
  constructor(
    private readonly policy: OriginPolicy,
    private readonly store: SessionStore,
  ) {}

  /** Whether the request comes from a page this server served (Origin = this scheme://Host). */
  sameOrigin(req: IncomingMessage): boolean {
    const host = req.headers.host;
    const origin = req.headers.origin;
    if (!host || !origin) return false;
    if (this.policy.hosts && !this.policy.hosts.has(host.toLowerCase())) return false;
    return origin.toLowerCase() === `${this.policy.scheme}://${host.toLowerCase()}`;
  }

  /** The verdict for a data request or a WebSocket upgrade. */
  check(req: IncomingMessage): Verdict {
    if (!this.sameOrigin(req)) return 'forbidden';
    return this.store.valid(cookieFrom(req.headers.cookie)) ? 'ok' : 'unauthorized';
  }
}
