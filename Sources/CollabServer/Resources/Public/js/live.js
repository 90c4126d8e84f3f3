// The agent's live event WebSocket, reconnecting with `lastEventId` so nothing is missed while the
// server's replay window covers the gap. A `resync` event means it did not: reload state.
import { socketURL } from './api.js';

export class LiveEvents {
  constructor({ onEvent, onStatus, onResync }) {
    this.onEvent = onEvent;
    this.onStatus = onStatus;
    this.onResync = onResync;
    this.lastEventId = undefined;
    this.namedAreas = [];
    this.socket = undefined;
    this.retry = 0;
    this.timer = undefined;
    this.stopped = true;
  }

  start(namedAreas = []) {
    this.namedAreas = namedAreas;
    this.stopped = false;
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
    const socket = new WebSocket(socketURL('/agent/v1/events', {
      namedAreas: this.namedAreas.join(','),
      lastEventId: this.lastEventId,
    }));
    this.socket = socket;
    this.onStatus('connecting');
    socket.onopen = () => {
      this.retry = 0;
      this.onStatus('connected');
    };
    socket.onmessage = (message) => {
      if (typeof message.data !== 'string') return;
      let event;
      try {
        event = JSON.parse(message.data);
      } catch {
        return;
      }
      if (event.type === 'resync') {
        this.onResync();
        return;
      }
      if (event.id > 0) this.lastEventId = event.id;
      if (event.type !== 'hello') this.onEvent(event);
    };
    socket.onclose = () => {
      if (this.socket !== socket || this.stopped) return;
      this.socket = undefined;
      this.onStatus('disconnected');
      // Back off up to 10 s; the replay window makes a late reconnect lossless.
      const delay = Math.min(10000, 500 * 2 ** this.retry);
      this.retry += 1;
      this.timer = setTimeout(() => this.connect(), delay);
    };
  }
}
