// The inspector's fault rules and snapshots: the active rules (refreshed while the inspector is shown),
// a form for a latency or error rule, removing a rule; downloading a snapshot and restoring one.
// Everything goes through the control API with the console's session: the server confines an admin
// to their own account's rules and snapshot, and keeps restoring with super admins.
import { ApiError, checkSession, currentSession, del, errorFrom, get, post, request } from './api.js';
import { $, attempt, el, fill, formatDateTime, guarded, notify, showResult } from './dom.js';

const REFRESH_MILLIS = 5000;
const cell = (text, attributes = {}) => el('td', attributes, text);

function describeMatch(match) {
  const parts = [match.surface, match.method, match.path, match.deviceId && `device ${match.deviceId}`, match.clientId && `client ${match.clientId}`];
  return parts.filter(Boolean).join(' ') || 'every request';
}

function describeAction(action) {
  switch (action.type) {
    case 'LATENCY':
      if (action.distribution === 'UNIFORM') return `latency ${action.minMillis}–${action.maxMillis} ms`;
      if (action.distribution === 'LOGNORMAL') return `latency ~${action.medianMillis} ms (σ ${action.sigma ?? 0.5})`;
      return `latency ${action.millis} ms`;
    case 'ERROR': return `error ${action.status}${action.message ? ` “${action.message}”` : ''}`;
    case 'PUSH_FAILURE': return `push failure ${action.reason}`;
    default: return action.type;
  }
}

/** A whole number from a form field, or undefined when it is not one. */
function integer(value) {
  const text = String(value).trim();
  return /^\d{1,9}$/.test(text) ? Number(text) : undefined;
}

// The console's own requests (surface, method, path; `*` an id), and what a rule matching them breaks.
// The control API (/_mock/v1) is no surface: rules never match it, so it is the way out.
const CONSOLE_REQUESTS = [
  ['WEB_API', 'POST', '/app/rest/v4/authenticator/login', 'logging in'],
  ['WEB_API', 'POST', '/app/rest/v4/authenticator/logout', 'logging out'],
  ['WEB_API', 'GET', '/app/rest/v4/authenticator/getCurrentPerson', 'opening the page while logged in'],
  ['WEB_API', 'POST', '/app/rest/v4/namedareas/search', 'the named-area filter'],
  ['WEB_API', 'POST', '/app/rest/v4/calls/search', 'the desk\'s calls'],
  ['WEB_API', 'GET', '/app/rest/v4/persons/*/read', 'telling visitors apart'],
  ['AGENT', 'GET', '/agent/v1/events', 'the desk\'s live events'],
  ['AGENT', 'GET', '/agent/v1/me', 'the desk\'s session check'],
  ['AGENT', 'GET', '/agent/v1/presence', 'presence'],
  ['AGENT', 'PUT', '/agent/v1/presence', 'presence'],
  ['AGENT', 'GET', '/agent/v1/queue', 'the queue'],
  ['AGENT', 'GET', '/agent/v1/conversations', 'your conversations'],
  ['AGENT', 'GET', '/agent/v1/conversations/*', 'opening a conversation'],
  ['AGENT', 'POST', '/agent/v1/conversations/*/accept', 'accepting'],
  ['AGENT', 'POST', '/agent/v1/conversations/*/end', 'ending a conversation'],
  ['AGENT', 'GET', '/agent/v1/conversations/*/messages', 'reading messages'],
  ['AGENT', 'POST', '/agent/v1/conversations/*/messages', 'sending messages'],
  ['AGENT', 'POST', '/agent/v1/conversations/*/files', 'sending files'],
  ['AGENT', 'GET', '/agent/v1/conversations/*/files/*', 'downloading files'],
  ['AGENT', 'POST', '/agent/v1/conversations/*/calls', 'calls'],
  ['AGENT', 'GET', '/agent/v1/calls/*', 'calls'],
  ['AGENT', 'POST', '/agent/v1/calls/*/end', 'calls'],
  ['AGENT', 'GET', '/agent/v1/conversations/*/cobrowsing', 'co-browsing'],
  ['AGENT', 'POST', '/agent/v1/conversations/*/cobrowsing', 'co-browsing'],
  ['AGENT', 'GET', '/agent/v1/cobrowsing/*/frames', 'co-browsing'],
];

/** A rule's path pattern as a test: `*` is one segment, a trailing `**` any rest. */
function pathMatcher(pattern) {
  const segments = pattern.split('/');
  const rest = segments[segments.length - 1] === '**';
  if (rest) segments.pop();
  const body = segments.map((segment) => segment.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')).join('/');
  const regex = new RegExp(`^${body}${rest ? '(/.*)?' : ''}$`);
  return (path) => regex.test(path);
}

/** What of the console's own requests a rule's match would hit: their descriptions, once each. */
export function consoleRequestsHit(match) {
  const path = match.path ? pathMatcher(match.path) : () => true;
  const hit = CONSOLE_REQUESTS.filter(([surface, method, requestPath]) => (!match.surface || match.surface === surface)
    && (!match.method || match.method === method) && path(requestPath));
  return [...new Set(hit.map(([, , , what]) => what))];
}

/** The way out when the console can no longer remove a rule itself. */
export function wayOut(id = '{id}') {
  return `Remove it through the control API, which fault rules never match: curl -X DELETE -u superadmin:PASSWORD `
    + `${window.location.origin}/_mock/v1/faults/${id} (or DELETE …/_mock/v1/faults for every rule; the control token works too).`;
}

/** A rule with a surface, method or path that still hits the console's own requests, for the confirmation. */
export function consoleWarning(action, hits) {
  const effect = action.type === 'ERROR'
    ? `It will fail them with ${action.status}, in this page and every other console session it matches, until it is removed.`
    : `It will delay them by ${action.millis} ms.`;
  return `This rule matches the console's own requests: ${hits.join(', ')}. ${effect}${action.type === 'ERROR' ? ` ${wayOut()}` : ''} Add it anyway?`;
}

/** What a rule matching every request does to the console itself, for the confirmation. */
export function everyRequestWarning(action, match, superAdmin = true) {
  const scope = match.account ? `every request of account ${match.account}` : superAdmin ? 'every request' : 'every request of your account';
  const effect = action.type === 'ERROR'
    ? `It will also fail the console's own requests with ${action.status}: this page (and every other console session${match.account || !superAdmin ? ' of that account' : ''}) may stop working, and logging in may fail, until the rule is removed through the control API (DELETE /_mock/v1/faults/{id}).`
    : `It will also delay the console's own requests by ${action.millis} ms.`;
  return `This rule has no surface, method or path: it matches ${scope}. ${effect}${action.type === 'ERROR' ? ` ${wayOut()}` : ''} Add it anyway?`;
}

/** Whether a snapshot document was exported without its secrets (docs/snapshots.md#secrets). */
export function isRedacted(snapshot) {
  return snapshot?.secrets === 'redacted';
}

/** The file name for a downloaded snapshot: its scope (account or server), the account's name, redacted or not. */
export function snapshotFileName(snapshot, stamp) {
  const account = snapshot?.scope === 'account' ? snapshot.accounts?.[0]?.account?.name || snapshot.accounts?.[0]?.account?.id : undefined;
  const scope = snapshot?.scope === 'account' ? `account-${account || 'unknown'}` : 'server';
  const secrets = isRedacted(snapshot) ? '-redacted' : '';
  return `mock-collab-${scope}${secrets}-${stamp}.snapshot.json`.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** Why a file's text is not a snapshot to restore, or undefined when it looks like one. */
export function snapshotProblem(text) {
  let snapshot;
  try {
    snapshot = JSON.parse(text);
  } catch (error) {
    return `is not JSON (${error.message})`;
  }
  if (!snapshot || typeof snapshot !== 'object' || Array.isArray(snapshot)) return 'is JSON but not a snapshot (not an object)';
  if (snapshot.format !== 'mock-collab-snapshot') {
    return `is not a MockCollab snapshot (its "format" is ${snapshot.format === undefined ? 'missing' : `“${String(snapshot.format)}”`}, not “mock-collab-snapshot”)`;
  }
  return undefined;
}

export class FaultsPanel {
  constructor({ me, onDataChanged = () => {} }) {
    this.superAdmin = me.role === 'SUPER_ADMIN';
    this.onDataChanged = onDataChanged;
    this.timer = undefined;
    this.listeners = [
      [$('#fault-form'), 'submit', (event) => { event.preventDefault(); this.addRule(event.submitter); }],
      [$('#fault-form').elements.type, 'change', () => this.showActionFields()],
      [$('#faults-table'), 'click', (event) => this.removeClicked(event)],
      [$('#snapshot-take'), 'submit', (event) => { event.preventDefault(); this.takeSnapshot(event.submitter); }],
      [$('#snapshot-restore'), 'submit', (event) => { event.preventDefault(); this.restoreSnapshot(event.submitter); }],
      [document, 'visibilitychange', () => this.schedule()],
    ];
    for (const [node, type, handler] of this.listeners) node.addEventListener(type, handler);
  }

  /** Shows the panel's current state and keeps the rule list fresh while the inspector is visible. */
  show() {
    const form = $('#fault-form').elements;
    form.account.disabled = !this.superAdmin;
    form.account.placeholder = this.superAdmin ? 'any account' : 'your account';
    $('#snapshot-take').elements.account.disabled = !this.superAdmin;
    $('#snapshot-take').elements.account.placeholder = this.superAdmin ? 'whole server' : 'your account';
    $('#snapshot-take').elements.secrets.disabled = !this.superAdmin;
    $('#snapshot-restore-fields').disabled = !this.superAdmin;
    $('#snapshot-restore-denied').hidden = this.superAdmin;
    $('#faults-scope').textContent = this.superAdmin ? 'Every account’s rules.' : 'Your account’s rules (rules you add apply to your account only).';
    this.showActionFields();
    this.load();
    this.schedule();
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const [node, type, handler] of this.listeners) node.removeEventListener(type, handler);
  }

  /** Reloads every few seconds while the page and the inspector are visible (rules expire and count). */
  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (document.visibilityState === 'visible' && !$('#inspector-view').hidden) this.load();
      this.schedule();
    }, REFRESH_MILLIS);
  }

  showActionFields() {
    const type = $('#fault-form').elements.type.value;
    for (const label of document.querySelectorAll('#fault-form [data-action]')) label.hidden = label.dataset.action !== type;
  }

  async load(button) {
    await guarded(async () => {
      const list = await get('/_mock/v1/faults');
      this.render(list.rules || []);
    }, button);
  }

  render(rules) {
    fill($('#faults-table tbody'), rules.length ? rules.map((rule) => el('tr', { dataset: { ruleId: rule.id } },
      cell(rule.description ? `${rule.id} (${rule.description})` : rule.id, { class: 'path' }),
      cell(rule.accountId || 'any'),
      cell(describeMatch(rule.match), { class: 'path' }),
      cell(describeAction(rule.action)),
      cell(`${rule.injected ?? 0}${rule.limit ? ` of ${rule.limit}` : ''}${rule.probability !== undefined && rule.probability !== null ? ` (p ${rule.probability})` : ''}`),
      cell(rule.expiresAt ? formatDateTime(rule.expiresAt) : 'never'),
      cell(el('button', { type: 'button', class: 'danger', dataset: { remove: rule.id }, 'aria-label': `Remove rule ${rule.id}` }, 'Remove'))))
      : el('tr', {}, el('td', { colspan: 7, class: 'muted' }, 'No fault rules: every request is answered as usual.')));
  }

  async addRule(button) {
    const form = $('#fault-form').elements;
    const match = {};
    for (const name of ['surface', 'method', 'path', 'account']) {
      const value = form[name].value.trim();
      if (value && !form[name].disabled) match[name] = value;
    }
    let action;
    if (form.type.value === 'LATENCY') {
      const millis = integer(form.millis.value);
      if (millis === undefined) { notify('The delay is a whole number of milliseconds'); return; }
      action = { type: 'LATENCY', distribution: 'FIXED', millis };
    } else {
      const status = integer(form.status.value);
      if (status === undefined) { notify('The status is a number from 400 to 599'); return; }
      action = { type: 'ERROR', status };
    }
    // A rule without a surface, method or path matches every request: the console's own too; others
    // may still match some of the console's requests (logging in, the desk's live events).
    const everything = !match.surface && !match.method && !match.path;
    const hits = everything ? [] : consoleRequestsHit(match);
    if (everything && !window.confirm(everyRequestWarning(action, match, this.superAdmin))) return;
    if (hits.length && !window.confirm(consoleWarning(action, hits))) return;
    const rule = await guarded(() => post('/_mock/v1/faults', { match, action }), button, 'Adding the rule');
    if (rule) {
      const stuck = (everything || hits.length) && action.type === 'ERROR' ? ` If the console stops working: ${wayOut(rule.id)}` : '';
      notify(`Rule ${rule.id} added: ${describeAction(rule.action)} for ${describeMatch(rule.match)}.${stuck}`, 'notice');
      await this.load();
    }
  }

  async removeClicked(event) {
    const button = event.target.closest('button[data-remove]');
    if (!button) return;
    const id = button.dataset.remove;
    const removed = await guarded(async () => { await del(`/_mock/v1/faults/${encodeURIComponent(id)}`); return true; }, button, `Removing rule ${id}`);
    if (removed) await this.load();
  }

  /** Fetches the snapshot as the server wrote it and hands it to the browser as a file download. */
  async takeSnapshot(button) {
    const form = $('#snapshot-take').elements;
    const account = form.account.value.trim();
    await attempt($('#snapshot-result'), 'Snapshot download', async () => {
      const params = new URLSearchParams();
      if (account) params.set('account', account);
      // Without secrets the server redacts them (docs/snapshots.md): restoring such a file logs everyone out.
      if (form.secrets.checked && !form.secrets.disabled) params.set('secrets', 'included');
      const query = params.size ? `?${params}` : '';
      const started = currentSession();
      let response;
      try {
        response = await fetch(`/_mock/v1/snapshot${query}`, {
          headers: { accept: 'application/json', 'x-requested-with': 'XMLHttpRequest' }, credentials: 'same-origin',
        });
      } catch (error) {
        throw new ApiError(0, `the server is unreachable (${error.message})`);
      }
      checkSession(started);
      if (!response.ok) throw await errorFrom(response);
      const blob = await response.blob();
      checkSession(started);
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      // Named by what it holds: an admin's download is their account's, whatever the field says.
      let snapshot;
      try {
        snapshot = JSON.parse(await blob.text());
      } catch {
        snapshot = { scope: account ? 'account' : 'server', accounts: [{ account: { name: account } }] };
      }
      const name = snapshotFileName(snapshot, stamp);
      const url = URL.createObjectURL(blob);
      const link = el('a', { href: url, download: name, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
      return `Snapshot downloaded: ${name} (${blob.size.toLocaleString('en')} bytes).`;
    }, button);
  }

  async restoreSnapshot(button) {
    const line = $('#snapshot-result');
    const file = $('#snapshot-file').files[0];
    if (!file) { showResult(line, 'Restore: choose a snapshot file first.', 'error'); return; }
    const text = await file.text();
    // Read and checked before asking: a file that is no snapshot is refused here, with nothing asked.
    const problem = snapshotProblem(text);
    if (problem) {
      showResult(line, `Not restored: ${file.name} ${problem}. Nothing was changed.`, 'error');
      return;
    }
    const snapshot = JSON.parse(text);
    const what = snapshot?.scope === 'account'
      ? `the account it holds (${snapshot.accounts?.[0]?.account?.name || 'unnamed'}) replaces the server's copy`
      : 'a server snapshot replaces everything';
    const question = isRedacted(snapshot)
      ? `${file.name} was downloaded WITHOUT SECRETS (redacted). Restoring it leaves every password in it unset and drops every session: `
        + 'everyone it holds is logged out, you included, and NOBODY CAN LOG IN until a seed or users/setPassword sets passwords again '
        + `(and its devices get new notification keys, its push sinks are unconfigured). Also, ${what}. Restore it anyway?`
      : `Restore ${file.name}? ${what[0].toUpperCase()}${what.slice(1)}.`;
    if (!window.confirm(question)) { showResult(line, ''); return; }
    let result;
    const restored = await attempt(line, `Restoring ${file.name}`, async () => {
      result = await request('POST', '/_mock/v1/snapshot', { body: text, contentType: 'application/json' });
      return `Restored ${result.scope} snapshot (version ${result.version}): ${result.accounts.join(', ') || 'no accounts'}, ${result.records} records.`;
    }, button);
    if (restored) {
      this.onDataChanged();
      await this.load();
    }
  }
}
