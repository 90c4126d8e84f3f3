// Boots the console: login with the Web API (the session cookie), then the desk and, for admins,
// the inspector.
import { ApiError, endSession, get, post, webAPI } from './api.js';
import { $, clearToast, notify } from './dom.js';
import { Desk } from './desk.js';
import { Inspector } from './inspector.js';

// The session cookie is HttpOnly: remember only that we logged in, so a fresh visit does not probe
// (and log a 401) when there is nothing to resume.
const SESSION_HINT = 'mockcollab.console.session';

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

function showView(name) {
  // Only admins have an inspector: for anyone else the desk is the one view.
  const view = name === 'inspector' && inspector ? 'inspector' : 'desk';
  for (const tab of document.querySelectorAll('.view-tab')) tab.setAttribute('aria-pressed', String(tab.dataset.view === view));
  $('#desk-view').hidden = view !== 'desk';
  $('#inspector-view').hidden = view !== 'inspector';
  if (view === 'inspector') inspector.show();
  if (window.location.hash !== `#${view}`) history.replaceState(null, '', `#${view}`);
}

async function enter(me, { fresh = false } = {}) {
  localStorage.setItem(SESSION_HINT, '1');
  $('#login-view').hidden = true;
  $('#login-error').textContent = '';
  $('#view-nav').hidden = false;
  $('#who').hidden = false;
  $('#who-name').textContent = me.name;
  $('#who-role').textContent = me.role;
  desk = new Desk({ me, fresh, onCoBrowsingSession: (id) => inspector?.setCoBrowsingSession(id) });
  inspector = Inspector.allowed(me) ? new Inspector({ me, onDataChanged: () => desk?.reloadAll() }) : undefined;
  $('.view-tab[data-view="inspector"]').hidden = !inspector;
  showView(window.location.hash === '#inspector' ? 'inspector' : 'desk');
  $('#main').focus();
  await desk.start();
}

/** Back to the login page with nothing of the session left on the page. */
function leave(message = '') {
  localStorage.removeItem(SESSION_HINT);
  // Answers still on their way belong to the session that ends here.
  endSession();
  desk?.stop();
  inspector?.stop();
  desk = undefined;
  inspector = undefined;
  $('#desk-view').replaceWith(pristine.desk.cloneNode(true));
  $('#inspector-view').replaceWith(pristine.inspector.cloneNode(true));
  clearToast();
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
      throw new ApiError(403, 'The console is for agents and admins.');
    }
    await enter(me, { fresh: true });
  } catch (failure) {
    if (failure.stale) return;
    error.textContent = failure.status === 401 ? 'Wrong username or password.' : failure.message;
    $('#login-password').select();
  } finally {
    button.disabled = false;
  }
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
      notify(`Logout failed (${failure?.message || 'no answer'}): you are still logged in. Try again.`);
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
