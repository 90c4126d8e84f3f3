// Boots the console: login with the Web API (the session cookie), then the desk and, for admins,
// the inspector.
import { ApiError, endSession, get, post, webAPI } from './api.js';
import { $, clearToast, describeError, notify } from './dom.js';
import { Desk, forgetDeskState } from './desk.js';
import { Inspector } from './inspector.js';

// The session cookie is HttpOnly: remember only that we logged in, so a fresh visit does not probe
// (and log a 401) when there is nothing to resume.
const SESSION_HINT = 'mockcollab.console.session';
const TITLE = 'MockCollab console';

let desk;
let inspector;
let leaving = false;
// The desk and the inspector as the page first came: a log out puts them back exactly so, so the next
// user sees nothing of the previous one's (conversation, messages, call, co-browsing, tables, forms).
const pristine = {};

async function currentUser() {
  const person = await get(webAPI('authenticator/getCurrentPerson'));
  return { id: person.id, name: person.displayName || person.username || 'agent', role: person.authorizationRole || 'REGISTERED_USER' };
}

/** The address's view and conversation: `#inspector`, `#desk` or `#desk/CONVERSATION_ID`. */
function fromHash() {
  const [view, id] = window.location.hash.slice(1).split('/');
  let conversationId;
  try {
    conversationId = id ? decodeURIComponent(id) : undefined;
  } catch {
    conversationId = undefined;
  }
  return { view: view === 'inspector' ? 'inspector' : 'desk', conversationId };
}

let shownView = 'desk';

/** Keeps the address naming the view and the open conversation, so a reload comes back to them. */
function updateHash() {
  const id = desk?.addressed;
  const hash = shownView === 'desk' && id ? `#desk/${encodeURIComponent(id)}` : `#${shownView}`;
  if (window.location.hash !== hash) history.replaceState(null, '', hash);
}

function showView(name) {
  // Only admins have an inspector: for anyone else the desk is the one view.
  const view = name === 'inspector' && inspector ? 'inspector' : 'desk';
  shownView = view;
  for (const tab of document.querySelectorAll('.view-tab')) tab.setAttribute('aria-pressed', String(tab.dataset.view === view));
  $('#desk-view').hidden = view !== 'desk';
  $('#inspector-view').hidden = view !== 'inspector';
  if (view === 'inspector') inspector.show();
  updateHash();
  desk?.viewChanged();
}

/** What waits on the desk: a count in the page title, and on the Agent desk tab while it is not shown. */
function showAttention({ total, ringing }) {
  const calls = ringing ? `${ringing === 1 ? 'Call ringing' : `${ringing} calls ringing`} · ` : '';
  document.title = total ? `${calls}(${total}) ${TITLE}` : TITLE;
  const badge = $('#desk-badge');
  badge.hidden = !total || shownView === 'desk';
  badge.textContent = ringing ? `${total} · call` : String(total);
  badge.dataset.ringing = String(ringing > 0);
  badge.setAttribute('aria-label', `${total} new on the desk${ringing ? ', a call is ringing' : ''}`);
}

async function enter(me, { fresh = false } = {}) {
  localStorage.setItem(SESSION_HINT, '1');
  $('#login-view').hidden = true;
  $('#login-error').textContent = '';
  $('#view-nav').hidden = false;
  $('#who').hidden = false;
  $('#who-name').textContent = me.name;
  $('#who-role').textContent = me.role;
  const wanted = fromHash();
  desk = new Desk({
    me, fresh, conversationId: wanted.conversationId,
    onCoBrowsingSession: (id) => inspector?.setCoBrowsingSession(id),
    onShowDesk: () => showView('desk'),
    onChange: () => updateHash(),
    onAttention: showAttention,
  });
  inspector = Inspector.allowed(me) ? new Inspector({ me, onDataChanged: () => desk?.reloadAll() }) : undefined;
  $('.view-tab[data-view="inspector"]').hidden = !inspector;
  showView(wanted.view);
  $('#main').focus();
  await desk.start();
}

/** Back to the login page with nothing of the session left on the page. */
function leave(message = '') {
  localStorage.removeItem(SESSION_HINT);
  // The next user's desk opens nothing of this one's.
  forgetDeskState();
  // Answers still on their way belong to the session that ends here.
  endSession();
  desk?.stop();
  inspector?.stop();
  desk = undefined;
  inspector = undefined;
  $('#desk-view').replaceWith(pristine.desk.cloneNode(true));
  $('#inspector-view').replaceWith(pristine.inspector.cloneNode(true));
  clearToast();
  document.title = TITLE;
  $('#desk-badge').hidden = true;
  shownView = 'desk';
  $('#view-nav').hidden = true;
  $('.view-tab[data-view="inspector"]').hidden = true;
  $('#who').hidden = true;
  $('#who-name').textContent = '';
  $('#who-role').textContent = '';
  $('#login-view').hidden = false;
  $('#login-password').value = '';
  $('#login-error').textContent = message;
  history.replaceState(null, '', window.location.pathname + window.location.search);
  $('#login-username').focus();
}

async function login(event) {
  event.preventDefault();
  const form = event.currentTarget;
  const button = form.querySelector('button[type=submit]');
  const username = form.elements.username.value.trim();
  const password = form.elements.password.value;
  const error = $('#login-error');
  error.textContent = '';
  if (!username || !password) {
    error.textContent = 'Enter a username and a password.';
    return;
  }
  button.disabled = true;
  try {
    await post(webAPI('authenticator/login'), { username, password });
    const me = await currentUser();
    if (!['REGISTERED_USER', 'SUPERVISOR', 'ADMIN', 'TECHNICAL_ADMIN', 'SUPER_ADMIN'].includes(me.role)) {
      await post(webAPI('authenticator/logout'));
      throw new ApiError(403, 'The console is for agents and admins.', 'NOT_FOR_CONSOLE');
    }
    await enter(me, { fresh: true });
  } catch (failure) {
    if (failure.stale) return;
    error.textContent = failure.status === 401 ? 'Wrong username or password.' : loginFailure(failure);
    $('#login-password').select();
  } finally {
    button.disabled = false;
  }
}

/** A login that failed for another reason than the password: what failed, and a way out of a fault rule. */
function loginFailure(failure) {
  if (failure.type === 'NOT_FOR_CONSOLE') return failure.message;
  const text = describeError(failure, 'Logging in');
  if (!(failure.status >= 400)) return text;
  return `${text}. If a fault rule causes this, remove it through the control API with a super admin's `
    + `basic auth or the control token: DELETE ${window.location.origin}/_mock/v1/faults (all rules) or …/faults/{id}.`;
}

async function logout() {
  leaving = true;
  try {
    // Offline for visitors while the session still works (best effort), then end it.
    await desk?.signOff().catch(() => {});
    await post(webAPI('authenticator/logout'));
  } catch (failure) {
    // A 401: logged out already (elsewhere), so the page leaves all the same. Anything else: the
    // session may still work, so the page stays and says so rather than pretend it ended.
    if (failure?.status !== 401) {
      leaving = false;
      desk?.resume();
      notify(`${describeError(failure || new Error('no answer'), 'Logout')}: you are still logged in. Try again.`);
      return;
    }
  }
  leave();
  leaving = false;
}

async function boot() {
  pristine.desk = $('#desk-view').cloneNode(true);
  pristine.inspector = $('#inspector-view').cloneNode(true);
  $('#login-form').addEventListener('submit', login);
  $('#logout').addEventListener('click', logout);
  // A 401 from any request, or the live socket closed with 4001: the session ended (a log out in
  // another tab, expiry, a restore or reset that dropped it).
  window.addEventListener('mockcollab:unauthorized', () => {
    if (!desk || leaving) return;
    leave('Your session ended: log in again.');
  });
  for (const tab of document.querySelectorAll('.view-tab')) tab.addEventListener('click', () => showView(tab.dataset.view));
  $('#login-submit').disabled = false;
  document.body.dataset.ready = 'true';
  if (localStorage.getItem(SESSION_HINT)) {
    try {
      await enter(await currentUser());
      return;
    } catch (failure) {
      if (failure.stale) return;
      localStorage.removeItem(SESSION_HINT);
      leave();
    }
  }
  $('#login-username').focus();
}

boot();
