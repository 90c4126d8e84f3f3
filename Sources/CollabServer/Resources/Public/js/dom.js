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

/**
 * Runs an async action for a button, disabling it meanwhile and reporting failures. An action the user
 * started (one with a button) that succeeds clears an earlier action's error, which would otherwise
 * linger beside this one's result.
 */
export async function guarded(action, button) {
  if (button) button.disabled = true;
  try {
    const result = await action();
    if (button) clearToast('error');
    return result;
  } catch (error) {
    // An answer from before a log out is nobody's business now.
    if (!error?.stale) notify(error.message || String(error));
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}
