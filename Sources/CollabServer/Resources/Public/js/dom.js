// Small DOM helpers. Text always goes in as text (textContent), never as markup.

export const $ = (selector, root = document) => root.querySelector(selector);

/** Creates an element: `el('li', { class: 'card', dataset: { id } }, 'text', child)`. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Replaces all children of `node`. */
export function fill(node, ...children) {
  node.replaceChildren(...children.flat().filter((child) => child !== undefined && child !== null && child !== false));
}

export function formatTime(ms) {
  if (!ms) return '';
  return new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function formatDateTime(ms) {
  if (!ms) return '';
  return new Date(ms).toLocaleString();
}

/** "1 message", "2 messages". */
export function plural(count, word, many = `${word}s`) {
  return `${count.toLocaleString('en')} ${count === 1 ? word : many}`;
}

/** What failed and why: "Sending the message failed: injected fault (HTTP 503)". */
export function describeError(error, what) {
  const message = error?.message || String(error);
  const status = error?.status > 0 && !message.includes(String(error.status)) ? ` (HTTP ${error.status})` : '';
  return `${what ? `${what} failed: ` : ''}${message}${status}`;
}

/** Reports a failure, except an answer from an earlier session or a 401 that ended the session
 *  (the login page says "Your session ended" already). */
export function report(error, what) {
  if (error?.stale || error?.sessionEnded) return;
  notify(describeError(error, what));
}

/** A panel's result line: replaced (or emptied) on every attempt, so no old outcome stands beside a new one. */
export function showResult(node, text, kind = '') {
  node.textContent = text;
  node.dataset.kind = kind;
}

let toastTimer;
/** Shows an error (or notice) where everyone sees it, and announces it. */
export function notify(message, kind = 'error') {
  const toast = $('#toast');
  toast.textContent = message;
  toast.dataset.kind = kind;
  toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { toast.hidden = true; }, kind === 'error' ? 8000 : 4000);
}

/** Hides the toast (`kind`: only when it shows that kind). */
export function clearToast(kind) {
  const toast = $('#toast');
  if (toast.hidden || (kind && toast.dataset.kind !== kind)) return;
  clearTimeout(toastTimer);
  toast.hidden = true;
  toast.textContent = '';
}

/** What a button does, for "… failed": its `data-action`, else its text. */
function buttonLabel(button) {
  if (!button) return undefined;
  return button.dataset?.action || button.textContent.trim().replace(/\s+/g, ' ') || undefined;
}

/**
 * Runs an async action for a button, disabling it meanwhile and reporting failures. An action the user
 * started (one with a button) that succeeds clears an earlier action's error, which would otherwise
 * linger beside this one's result.
 */
export async function guarded(action, button, what = buttonLabel(button)) {
  if (button) button.disabled = true;
  try {
    const result = await action();
    if (button) clearToast('error');
    return result;
  } catch (error) {
    // An answer from before a log out is nobody's business now.
    report(error, what);
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}

/**
 * Runs an action whose outcome goes on a result line (`node`): the line is emptied when it starts, then
 * shows the action's text (what it resolves to) or what failed. A failure is also reported as usual.
 */
export async function attempt(node, what, action, button) {
  showResult(node, '');
  if (button) button.disabled = true;
  try {
    const text = await action();
    if (text) showResult(node, text, 'ok');
    if (button) clearToast('error');
    return true;
  } catch (error) {
    if (!error?.stale && !error?.sessionEnded) showResult(node, describeError(error, what), 'error');
    report(error, what);
    return false;
  } finally {
    if (button) button.disabled = false;
  }
}
