// The agent's live event WebSocket, reconnecting with `lastEventId` so nothing is missed while the
// server's replay window covers the gap. A `resync` event means it did not: reload state.
//
// The first connection asks for `lastEventId=0`: the server answers `resync` and then replays the
// events for this agent still in its window. That is how the desk learns what the agent API has no
// route for (the agent's own presence, a co-browsing session running in a conversation) after a reload.
// Each connection reports when it has read what was replayed (`onCaughtUp`): `hello` says how many
// events follow, and a `sync` request sent on open is answered behind them.
// Close code 4001 (the session ended: logged out elsewhere, expired) and 4003 end the stream for good;
// an upgrade that fails before opening is reported (`onRefused`) so the caller can check the session.
import { socketURL } from './api.js';

const SESSION_ENDED_CODES = new Set([4001, 4003]);

export class LiveEvents {
  constructor({ onEvent, onStatus, onResync, onCaughtUp = () => {}, onEnded = () => {}, onRefused = () => {} }) {
    this.onEvent = onEvent;
    this.onStatus = onStatus;
    this.onResync = onResync;
    this.onCaughtUp = onCaughtUp;
    this.onEnded = onEnded;
    this.onRefused = onRefused;
    this.lastEventId = undefined;
    this.namedAreas = [];
    this.socket = undefined;
    this.retry = 0;
    this.timer = undefined;
    this.stopped = true;
    this.connections = 0;
  }

  /** Connects; `replayWindow` starts from the oldest event the server still holds for this agent. */
  start(namedAreas = [], { replayWindow = true } = {}) {
    this.namedAreas = namedAreas;
    this.stopped = false;
    if (replayWindow && this.lastEventId === undefined) this.lastEventId = 0;
    this.connect();
  }

  /** Reconnects with a new queue filter, resuming where the stream was. */
  setNamedAreas(namedAreas) {
    this.namedAreas = namedAreas;
    if (!this.stopped) this.reconnect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.socket) {
      this.socket.onclose = null;
      this.socket.close(1000);
      this.socket = undefined;
    }
  }

  reconnect() {
    if (this.socket) {
      this.socket.onclose = null;
      this.socket.close(1000);
      this.socket = undefined;
    }
    this.connect();
  }

  connect() {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const first = this.connections === 0;
    this.connections += 1;
    const socket = new WebSocket(socketURL('/agent/v1/events', {
      namedAreas: this.namedAreas.join(','),
      lastEventId: this.lastEventId,
    }));
    this.socket = socket;
    this.onStatus('connecting');
    const syncId = `catch-up-${this.connections}`;
    let opened = false;
    let expected; // how many replayed events `hello` announced
    let replayed = 0;
    let caughtUp = false;
    const finish = () => {
      if (caughtUp) return;
      caughtUp = true;
      this.onCaughtUp({ first });
    };
    socket.onopen = () => {
      opened = true;
      this.retry = 0;
      this.onStatus('connected');
      // Answered behind everything published before it, the replay included.
      socket.send(JSON.stringify({ type: 'sync', id: syncId }));
    };
    socket.onmessage = (message) => {
      if (this.socket !== socket || typeof message.data !== 'string') return;
      let event;
      try {
        event = JSON.parse(message.data);
      } catch {
        return;
      }
      switch (event.type) {
        case 'hello':
          expected = Number(event.detail?.replayed) || 0;
          if (expected === 0) finish();
          return;
        case 'resync':
          this.onResync({ first });
          return;
        case 'sync':
          if (event.detail?.id === syncId) finish();
          return;
        default:
          break;
      }
      if (event.id > 0 && !(event.id <= this.lastEventId)) this.lastEventId = event.id;
      this.onEvent(event, { replayed: !caughtUp });
      if (!caughtUp && expected !== undefined) {
        replayed += 1;
        if (replayed >= expected) finish();
      }
    };
    socket.onclose = (close) => {
      if (this.socket !== socket || this.stopped) return;
      this.socket = undefined;
      if (SESSION_ENDED_CODES.has(close.code)) {
        // The session is over: reconnecting with it would only be refused.
        this.stopped = true;
        this.onStatus('session ended');
        this.onEnded(close.code);
        return;
      }
      this.onStatus('disconnected');
      // A browser does not say why an upgrade failed: a 401 looks like any network error.
      if (!opened) this.onRefused();
      // Back off up to 10 s; the replay window makes a late reconnect lossless.
      const delay = Math.min(10000, 500 * 2 ** this.retry);
      this.retry += 1;
      this.timer = setTimeout(() => this.connect(), delay);
    };
  }
}
