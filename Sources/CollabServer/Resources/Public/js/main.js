// Boots the console: login with the Web API (the session cookie), then the desk and, for admins,
// the inspector.
import { ApiError, get, post, webAPI } from './api.js';
import { $ } from './dom.js';
import { Desk } from './desk.js';
import { Inspector } from './inspector.js';

// The session cookie is HttpOnly: remember only that we logged in, so a fresh visit does not probe
// (and log a 401) when there is nothing to resume.
const SESSION_HINT = 'mockcollab.console.session';

let desk;
let inspector;

async function currentUser() {
  const person = await get(webAPI('authenticator/getCurrentPerson'));
  return { id: person.id, name: person.displayName || person.username || 'agent', role: person.authorizationRole || 'REGISTERED_USER' };
}

function showView(name) {
  for (const tab of document.querySelectorAll('.view-tab')) tab.setAttribute('aria-pressed', String(tab.dataset.view === name));
  $('#desk-view').hidden = name !== 'desk';
  $('#inspector-view').hidden = name !== 'inspector';
  if (name === 'inspector') {
    const allowed = Boolean(inspector);
    $('#inspector-denied').hidden = allowed;
    $('#inspector-panels').hidden = !allowed;
    if (inspector) inspector.show();
  }
  if (window.location.hash !== `#${name}`) history.replaceState(null, '', `#${name}`);
}

async function enter(me) {
  localStorage.setItem(SESSION_HINT, '1');
  $('#login-view').hidden = true;
  $('#view-nav').hidden = false;
  $('#who').hidden = false;
  $('#who-name').textContent = me.name;
  $('#who-role').textContent = me.role;
  desk = new Desk({ me, onCoBrowsingSession: (id) => inspector?.setCoBrowsingSession(id) });
  inspector = Inspector.allowed(me) ? new Inspector({ me }) : undefined;
  showView(window.location.hash === '#inspector' ? 'inspector' : 'desk');
  $('#main').focus();
  await desk.start();
}

function leave() {
  localStorage.removeItem(SESSION_HINT);
  desk?.stop();
  inspector?.stop();
  desk = undefined;
  inspector = undefined;
  $('#desk-view').hidden = true;
  $('#inspector-view').hidden = true;
  $('#view-nav').hidden = true;
  $('#who').hidden = true;
  $('#login-view').hidden = false;
  $('#login-password').value = '';
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
    await enter(me);
  } catch (failure) {
    error.textContent = failure.status === 401 ? 'Wrong username or password.' : failure.message;
    $('#login-password').select();
  } finally {
    button.disabled = false;
  }
}

async function logout() {
  try {
    await post(webAPI('authenticator/logout'));
  } finally {
    leave();
  }
}

async function boot() {
  $('#login-form').addEventListener('submit', login);
  $('#logout').addEventListener('click', logout);
  window.addEventListener('mockcollab:unauthorized', () => {
    if (!desk) return;
    leave();
    $('#login-error').textContent = 'Your session ended: log in again.';
  });
  for (const tab of document.querySelectorAll('.view-tab')) tab.addEventListener('click', () => showView(tab.dataset.view));
  $('#login-submit').disabled = false;
  document.body.dataset.ready = 'true';
  if (localStorage.getItem(SESSION_HINT)) {
    try {
      await enter(await currentUser());
      return;
    } catch {
      localStorage.removeItem(SESSION_HINT);
      leave();
    }
  }
  $('#login-username').focus();
}

boot();
