// The co-browsing viewer: frames arrive on `/agent/v1/cobrowsing/{id}/frames` as binary messages in
// the MCF1 format (header, then a PNG or JPEG) and are shown through blob URLs, the previous one
// revoked as soon as the next is displayed.
import { socketURL } from './api.js';

/** Decodes an MCF1 frame message (see CollabWire's FrameHeader). Throws on anything malformed. */
export function decodeFrame(buffer) {
  const view = new DataView(buffer);
  const bytes = new Uint8Array(buffer);
  let offset = 0;
  const need = (count) => {
    if (offset + count > bytes.length) throw new Error('frame message shorter than its header');
  };
  need(6);
  if (String.fromCharCode(...bytes.subarray(0, 4)) !== 'MCF1') throw new Error('not an MCF1 frame');
  const version = bytes[4];
  if (version !== 1) throw new Error(`unsupported frame version ${version}`);
  const idLength = bytes[5];
  offset = 6;
  need(idLength);
  const sessionId = new TextDecoder().decode(bytes.subarray(offset, offset + idLength));
  offset += idLength;
  need(17);
  const sequence = view.getUint32(offset);
  const captureTime = Number(view.getBigInt64(offset + 4));
  const width = view.getUint16(offset + 12);
  const height = view.getUint16(offset + 14);
  const areaCount = bytes[offset + 16];
  offset += 17;
  need(areaCount * 8);
  const privateAreas = [];
  for (let i = 0; i < areaCount; i += 1) {
    privateAreas.push({
      x: view.getUint16(offset), y: view.getUint16(offset + 2), width: view.getUint16(offset + 4), height: view.getUint16(offset + 6),
    });
    offset += 8;
  }
  const image = bytes.subarray(offset);
  const type = image[0] === 0x89 && image[1] === 0x50 ? 'image/png' : image[0] === 0xff && image[1] === 0xd8 ? 'image/jpeg' : undefined;
  if (!type) throw new Error('the frame image is neither PNG nor JPEG');
  return { sessionId, sequence, captureTime, width, height, privateAreas, image, type };
}

export class FrameViewer {
  constructor({ image, onStatus }) {
    this.image = image;
    this.onStatus = onStatus;
    this.socket = undefined;
    this.url = undefined;
    this.sessionId = undefined;
    this.frames = 0;
  }

  watch(sessionId) {
    if (this.sessionId === sessionId && this.socket) return;
    this.close();
    this.sessionId = sessionId;
    this.frames = 0;
    const socket = new WebSocket(socketURL(`/agent/v1/cobrowsing/${encodeURIComponent(sessionId)}/frames`));
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    this.onStatus('waiting for the visitor to share the screen…');
    socket.onmessage = (message) => {
      if (!(message.data instanceof ArrayBuffer)) return;
      let frame;
      try {
        frame = decodeFrame(message.data);
      } catch (error) {
        this.onStatus(`unreadable frame: ${error.message}`);
        return;
      }
      this.show(frame);
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.onStatus(this.frames > 0 ? `ended after ${this.frames} frame(s)` : 'the viewer connection closed');
    };
  }

  show(frame) {
    const previous = this.url;
    this.url = URL.createObjectURL(new Blob([frame.image], { type: frame.type }));
    // The previous image stays on screen until the next one has loaded (or failed to), then goes.
    this.image.onload = this.image.onerror = () => {
      if (previous) URL.revokeObjectURL(previous);
    };
    this.image.src = this.url;
    this.image.dataset.sequence = String(frame.sequence);
    this.image.hidden = false;
    this.frames += 1;
    const areas = frame.privateAreas.length ? `, ${frame.privateAreas.length} private area(s)` : '';
    this.onStatus(`frame ${frame.sequence}: ${frame.width}×${frame.height}, captured ${new Date(frame.captureTime).toLocaleTimeString()}${areas}`);
  }

  close() {
    if (this.socket) {
      const socket = this.socket;
      this.socket = undefined;
      socket.close(1000);
    }
    if (this.url) URL.revokeObjectURL(this.url);
    this.url = undefined;
    this.image.removeAttribute('src');
    this.image.hidden = true;
    this.sessionId = undefined;
  }
}
