// Files in the chat: a FILE message shows as a download link (the agent API's download route, which
// the session cookie authenticates); the agent uploads a picked file as the raw request body.
import { ApiError } from './api.js';
import { el } from './dom.js';

const filesPath = (conversationId) => `/agent/v1/conversations/${encodeURIComponent(conversationId)}/files`;

function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** The link for a FILE message's file. */
export function fileLink(message) {
  const file = message.file;
  return el('a', {
    class: 'file', href: `${filesPath(message.conversationId)}/${encodeURIComponent(file.id)}`, download: file.name,
    dataset: { fileId: file.id }, title: `${file.mimeType}, ${formatSize(file.size)}`,
  }, `📎 ${file.name}`, el('span', { class: 'muted' }, ` (${file.mimeType}, ${formatSize(file.size)})`));
}

/** Uploads `file` into a conversation (as an internal note's file with `internal`); resolves to the FILE message, or throws an ApiError with the server's refusal. */
export async function uploadFile(conversationId, file, { internal = false } = {}) {
  // `internal=true`: a note's file, for agents only (the visitor never sees it).
  const query = new URLSearchParams(internal ? { name: file.name, internal: 'true' } : { name: file.name });
  const url = `${filesPath(conversationId)}?${query}`;
  let response;
  try {
    response = await fetch(url, {
      method: 'POST', body: file, credentials: 'same-origin',
      headers: { 'content-type': file.type || 'application/octet-stream', accept: 'application/json', 'x-requested-with': 'XMLHttpRequest' },
    });
  } catch (error) {
    throw new ApiError(0, `the server is unreachable (${error.message})`);
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, body.message || `${response.status} ${response.statusText}`, body.type);
  return body;
}
