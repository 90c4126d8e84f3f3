// HTTP calls to the server, same origin, authenticated by the session cookie.
// Every failure becomes an ApiError carrying the server's message (the typed body's `message` on the
// agent and mobile APIs, `errorMessage` of the Web API Error body elsewhere).

export class ApiError extends Error {
  constructor(status, message, type) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.type = type;
  }
}

// Answers to requests made in an earlier session (before a log out) must not reach the next user's
// page: each request remembers the session it was made in, and one that answers after the session
// changed is refused as stale (and reported nowhere).
let session = 0;
export class StaleAnswer extends ApiError {
  constructor() {
    super(0, 'the answer belongs to an earlier session', 'STALE');
    this.stale = true;
  }
}
/** Ends the current session: answers still on their way are dropped. */
export function endSession() {
  session += 1;
}
/** The current session's number, to check an answer made without `request` with `checkSession`. */
export const currentSession = () => session;
export function checkSession(started) {
  if (started !== session) throw new StaleAnswer();
}

export async function errorFrom(response) {
  let message = `${response.status} ${response.statusText}`;
  let type;
  try {
    const body = await response.json();
    message = body.message || body.errorMessage || message;
    type = body.type;
  } catch {
    // Not JSON: keep the status line.
  }
  return new ApiError(response.status, message, type);
}

/** Sends a request; `body` objects go as JSON, strings as they are. Resolves to the parsed JSON (or null). */
export async function request(method, path, { body, contentType, query } = {}) {
  let url = path;
  if (query) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
    }
    const text = params.toString();
    if (text) url += `?${text}`;
  }
  // Marks the call as a script's: a 401 then comes without a Basic challenge, which would make the
  // browser show its own login dialog.
  const headers = { accept: 'application/json', 'x-requested-with': 'XMLHttpRequest' };
  let payload;
  if (body !== undefined) {
    if (typeof body === 'string') {
      payload = body;
      headers['content-type'] = contentType || 'text/plain';
    } else {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
  }
  const started = session;
  let response;
  try {
    response = await fetch(url, { method, headers, body: payload, credentials: 'same-origin' });
  } catch (error) {
    checkSession(started);
    throw new ApiError(0, `the server is unreachable (${error.message})`);
  }
  checkSession(started);
  if (!response.ok) {
    const error = await errorFrom(response);
    // A session that ended (logout elsewhere, expiry, server reset) sends the console back to login.
    if (response.status === 401 && !url.includes('/authenticator/')) {
      // The login page says so: this request's own error is not shown as well.
      error.sessionEnded = true;
      window.dispatchEvent(new CustomEvent('mockcollab:unauthorized'));
    }
    throw error;
  }
  if (response.status === 204) return null;
  const type = response.headers.get('content-type') || '';
  const answer = await (type.includes('json') ? response.json() : response.text());
  checkSession(started);
  return answer;
}

export const get = (path, query) => request('GET', path, { query });
export const post = (path, body, options = {}) => request('POST', path, { body, ...options });
export const put = (path, body) => request('PUT', path, { body });
export const del = (path) => request('DELETE', path);

/** The WebSocket URL for a path on this server. */
export function socketURL(path, query = {}) {
  const url = new URL(path, window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(key, String(value));
  }
  return url.toString();
}

export const webAPI = (operation) => `/app/rest/v4/${operation}`;
