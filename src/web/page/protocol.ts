/** What the page and `corral web` say over the WebSocket (src/web/page-session.ts holds the server's side). */
import type { PaneWatchMessage, WebFleet } from '../../contract/web.js';
import type { StatusEvent } from '../fleet-order.js';
import type { PredictMode } from '../../screen/remote-prediction.js';

export type ServerMessage =
  | { t: 'hello'; client_id: string; read_only: boolean; why: string | null; predict?: PredictMode }
  | { t: 'fleet'; fleet: WebFleet; read_only?: boolean; why?: string | null }
  | ({ t: 'screen' } & PaneWatchMessage)
  | { t: 'status'; change: StatusEvent }
  | { t: 'error'; message: string }
  | { t: 'pong'; id: number };
