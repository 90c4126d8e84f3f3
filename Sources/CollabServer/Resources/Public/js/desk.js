// The agent desk: presence, the queue with its named-area filter, accept, live chat, end, calls and
// co-browsing, all kept current by the live event stream.
//
// The open conversation's messages are kept by sequence: the history load, live events (replayed ones
// included, and late ones under a delay) and the answers to what the agent sends are merged into one
// ordered list, each message once. A hole in the sequence is filled from the server, and after a
// reconnect or a `resync` the conversation is read again so the list is exactly the server's.
import { get, post, put, webAPI } from './api.js';
import { $, el, fill, formatTime, guarded, notify } from './dom.js';
import { LiveEvents } from './live.js';
import { FrameViewer } from './cobrowse.js';
import { fileLink, uploadFile } from './files.js';

const CONVERSATION_EVENTS = new Set([
  'conversation.created', 'conversation.queued', 'conversation.active', 'conversation.requeued', 'conversation.unassigned',
  'conversation.updated', 'conversation.ended', 'conversation.offboarding', 'conversation.deleted',
]);
/** A message's text is at most 16 KiB of UTF-8 (the server answers more with a 413). */
export const MAX_MESSAGE_BYTES = 16 * 1024;
const HISTORY_PAGE = 500;
const PRESENCES = ['ONLINE', 'AWAY', 'OFFLINE'];

const conversationPath = (id, rest = '') => `/agent/v1/conversations/${encodeURIComponent(id)}${rest}`;
const utf8Length = (text) => new TextEncoder().encode(text).length;
const equals = (field, value) => ({ $_type: 'CallSearchFilter', field, operator: { $_type: 'EqualsIdOperator', type: 'EQUALS', value } });
/** IS_NULL on a timestamp field (the operator's `$_type` names its family, as the server checks). */
const isNull = (field) => ({ $_type: 'CallSearchFilter', field, operator: { $_type: 'IsNullTimestampOperator', type: 'IS_NULL' } });
/** Web API `calls/search`: the calls matching `filters`, newest first. */
const searchCalls = (filters, limit) => post(webAPI('calls/search'), {
  $_type: 'CallQuery', searchFilters: filters, orderBy: [{ $_type: 'CallOrderBy', field: 'INITIATION_TIMESTAMP', order: 'DESCENDING' }], limit,
});

export class Desk {
  /**
   * `fresh`: the user logged in just now with the form (not a reload or another tab), so an agent who
   * is offline goes online; otherwise the presence the server holds is only shown.
   */
  constructor({ me, fresh = false, onCoBrowsingSession }) {
    this.me = me;
    this.fresh = fresh;
    this.onCoBrowsingSession = onCoBrowsingSession;
    this.stopped = false;
    this.current = undefined; // the open conversation (a ConversationView)
    this.generation = 0; // every open() bumps it: answers for an earlier one are dropped
    this.messages = new Map(); // sequence → MessageView of the open conversation
    this.checkedThrough = 0; // the server was read up to this sequence: holes below it are the server's
    this.loading = undefined; // while the history loads: { live: sequences that arrived meanwhile }
    this.gapTimer = undefined;
    this.call = undefined;
    this.coBrowsingId = undefined;

    this.ringing = new Map(); // callId → { conversationId, callType }: visitors' calls ringing here
    this.mine = []; // the agent's active conversations
    this.presence = undefined; // as the server last said
    this.presenceSettling = false;
    this.presenceSettled = false;
    this.refreshTimer = undefined;
    this.viewer = new FrameViewer({ image: $('#cobrowse-frame'), onStatus: (text) => { $('#cobrowse-status').textContent = text; } });
    this.live = new LiveEvents({
      onEvent: (event, { replayed }) => this.handle(event, { replayed }),
      onStatus: (status) => { $('#live-status').textContent = `Live events: ${status}`; },
      // The first connection asks for the whole window and always gets a resync: start() loads state.
      onResync: () => {},
      // The first time: the presence the replay carried. Later (a reconnect, a resync, a new filter):
      // read everything again, so what a lost or dropped event hid shows too.
      onCaughtUp: () => (this.presenceSettling ? this.reloadAll() : this.caughtUp()),
      onEnded: () => window.dispatchEvent(new CustomEvent('mockcollab:unauthorized')),
      // The upgrade failed: if the session is over, the 401 of this probe says so (api.js).
      onRefused: () => { get('/agent/v1/me').catch(() => {}); },
    });
    this.bind();
  }

  bind() {
    this.listeners = [
      [$('#presence'), 'change', (event) => this.setPresence(event.target)],
      [$('#area-filter'), 'change', () => this.filterChanged()],
      [$('#composer'), 'submit', (event) => { event.preventDefault(); this.send(event.submitter); }],
      [$('#composer-text'), 'keydown', (event) => this.composerKey(event)],
      [$('#composer-text'), 'input', () => this.checkLength()],
      [$('#file-send'), 'click', (event) => this.sendFile(event.currentTarget)],
      [$('#conversation-end'), 'click', (event) => this.end(event.currentTarget)],
      [$('#call-audio'), 'click', (event) => this.startCall('AUDIO', event.currentTarget)],
      [$('#call-video'), 'click', (event) => this.startCall('VIDEO', event.currentTarget)],
      [$('#call-end'), 'click', (event) => this.endCall(event.currentTarget)],
      [$('#call-answer'), 'click', (event) => this.answerCall('answer', event.currentTarget)],
      [$('#call-decline'), 'click', (event) => this.answerCall('decline', event.currentTarget)],
      [$('#cobrowse-request'), 'click', (event) => this.requestCoBrowsing(event.currentTarget)],
      [$('#cobrowse-stop'), 'click', (event) => this.stopCoBrowsing(event.currentTarget)],
    ];
    for (const [node, type, handler] of this.listeners) node.addEventListener(type, handler);
  }

  async start() {
    const select = $('#presence');
    select.value = '';
    select.disabled = true;
    await guarded(async () => {
      const areas = await post(webAPI('namedareas/search'), { $_type: 'NamedAreaQuery' });
      if (!this.stopped) this.renderAreas(areas.items || []);
    });
    if (this.stopped) return;
    this.live.start(this.selectedAreas());
    await this.reloadAll();
  }

  stop() {
    this.stopped = true;
    this.live.stop();
    this.viewer.close();
    for (const [node, type, handler] of this.listeners) node.removeEventListener(type, handler);
    clearTimeout(this.refreshTimer);
    clearTimeout(this.gapTimer);
  }

  /** A logout that failed: the session still works, so the desk goes on (its live events resume where
   *  they stopped; the presence shows what the server has, OFFLINE if signing off got that far). */
  async resume() {
    if (this.stopped) return;
    this.live.start(this.selectedAreas(), { replayWindow: false });
    await this.reloadAll();
  }

  /** Log out: offline for visitors first (`onlineAgents` drops), while the session still works. */
  async signOff() {
    this.live.stop();
    try {
      await put('/agent/v1/presence', { presence: 'OFFLINE' });
    } catch {
      // The session may be gone already: then the server dropped the presence's owner anyway.
    }
  }

  // --- presence -------------------------------------------------------------------------------

  showPresence(presence) {
    const select = $('#presence');
    const known = PRESENCES.includes(presence);
    // The server could not be asked (the session ended meanwhile): say so rather than guess.
    if (!known && this.presenceSettled) select.querySelector('option[value=""]').textContent = 'Not known: choose one';
    select.value = known ? presence : '';
    select.dataset.presence = presence || 'UNKNOWN';
  }

  /** The replay has been read: the presence it carried (or the server's record) is the truth. */
  async caughtUp() {
    this.presenceSettling = true;
    let presence = this.presence;
    if (!presence) {
      // The replay window may no longer hold the last change: the server's record answers.
      try {
        presence = (await get('/agent/v1/presence'))?.presence;
      } catch {
        // Not readable after all: the presence stays unknown.
      }
      if (this.stopped) return;
    }
    if (this.fresh && (!presence || presence === 'OFFLINE')) {
      // Logging in is coming online, unless the agent chose Away (in another tab or browser).
      const answer = await guarded(() => put('/agent/v1/presence', { presence: 'ONLINE' }));
      if (this.stopped) return;
      if (answer?.presence) presence = answer.presence;
    }
    // A change that arrived meanwhile (another tab) is newer than what was read.
    this.presence = this.presence && !this.fresh ? this.presence : presence;
    presence = this.presence;
    this.presenceSettled = true;
    this.showPresence(presence);
    $('#presence').disabled = false;
  }

  async setPresence(select) {
    const answer = await guarded(() => put('/agent/v1/presence', { presence: select.value }), select);
    if (answer?.presence) {
      this.presence = answer.presence;
      this.showPresence(answer.presence);
    } else {
      this.showPresence(this.presence);
    }
  }

  // --- queue and the agent's conversations ----------------------------------------------------

  renderAreas(areas) {
    const fieldset = $('#area-filter');
    const legend = fieldset.querySelector('legend');
    $('#area-filter-empty').hidden = areas.length > 0;
    const boxes = areas.map((area) => {
      const value = area.siteId || area.id;
      const id = `area-${value.replace(/[^A-Za-z0-9_-]/g, '_')}`;
      return el('div', { class: 'check' },
        el('input', { type: 'checkbox', id, name: 'namedArea', value }),
        el('label', { for: id }, area.name ? `${area.name} (${value})` : value));
    });
    fill(fieldset, legend, $('#area-filter-empty'), boxes);
  }

  selectedAreas() {
    return [...document.querySelectorAll('#area-filter input[name=namedArea]:checked')].map((box) => box.value);
  }

  filterChanged() {
    this.live.setNamedAreas(this.selectedAreas());
    this.loadQueue();
  }

  /** Everything again from the server: at start, after a reconnect or resync, after a reset. */
  async reloadAll() {
    if (this.stopped) return;
    await Promise.all([this.loadQueue(), this.loadMine()]);
    await this.loadRinging();
    if (this.current && !this.stopped) await this.open(this.current.id, { reload: true });
  }

  scheduleRefresh() {
    // Bursts of events (queued, then active, then updated) cost one reload.
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => { this.loadQueue(); this.loadMine(); }, 150);
  }

  async loadQueue() {
    await guarded(async () => {
      const areas = this.selectedAreas();
      const queue = await get('/agent/v1/queue', { namedAreas: areas.join(',') });
      if (this.stopped) return;
      const entries = queue.entries || [];
      $('#queue-empty').hidden = entries.length > 0;
      fill($('#queue-list'), entries.map((entry) => this.queueCard(entry)));
    });
  }

  queueCard(entry) {
    const conversation = entry.conversation;
    const visitor = conversation.participants.find((p) => p.type === 'CONTEXT_PERSON');
    return el('li', { class: 'card', dataset: { conversationId: conversation.id } },
      el('div', { class: 'card-title' }, conversation.topic || 'Untitled conversation'),
      el('div', { class: 'muted' }, `${visitor?.displayName || 'Visitor'} · ${conversation.recipient.type} · queued ${formatTime(conversation.queuedAt)}`),
      el('button', { type: 'button', class: 'accept', onclick: (event) => this.accept(conversation.id, event.currentTarget) },
        'Accept', el('span', { class: 'visually-hidden' }, ` ${conversation.topic || 'conversation'}`)));
  }

  async loadMine() {
    await guarded(async () => {
      const list = await get('/agent/v1/conversations', { state: 'ACTIVE' });
      if (this.stopped) return;
      this.mine = list.conversations || [];
      this.renderMine();
    });
  }

  renderMine() {
    const ringingIn = new Set([...this.ringing.values()].map((call) => call.conversationId));
    this.renderNotices();
    // Re-rendered only when something shown changed: a list that keeps its nodes keeps focus too.
    const shown = JSON.stringify([this.current?.id, [...ringingIn], this.mine.map((c) => [c.id, c.topic, c.messageCount])]);
    if (shown === this.mineShown) return;
    this.mineShown = shown;
    $('#mine-empty').hidden = this.mine.length > 0;
    fill($('#mine-list'), this.mine.map((conversation) => el('li', { class: 'card', dataset: { conversationId: conversation.id } },
      el('button', {
        type: 'button', class: 'link', 'aria-current': this.current?.id === conversation.id ? 'true' : undefined,
        onclick: () => this.open(conversation.id),
      }, conversation.topic || 'Untitled conversation'),
      el('span', { class: 'muted' }, ` ${conversation.messageCount} message(s)`),
      ringingIn.has(conversation.id) ? el('span', { class: 'badge ringing' }, 'call ringing') : null)));
  }

  async accept(id, button) {
    const conversation = await guarded(() => post(conversationPath(id, '/accept')), button);
    if (!conversation || this.stopped) return;
    this.scheduleRefresh();
    await this.open(conversation.id);
  }

  // --- the open conversation ------------------------------------------------------------------

  /** Opens a conversation (or reads the open one again): its messages, current call and co-browsing. */
  async open(id, { reload = false } = {}) {
    this.generation += 1;
    const generation = this.generation;
    let conversation;
    try {
      conversation = await get(conversationPath(id));
    } catch (error) {
      if (error.stale || generation !== this.generation || this.stopped) return;
      if (error.status === 404 && this.current?.id === id) this.close('The conversation is gone (deleted, or the server was reset).');
      else notify(error.message);
      return;
    }
    if (generation !== this.generation || this.stopped) return;
    const switching = this.current?.id !== conversation.id;
    this.current = conversation;
    if (switching) this.clearConversation();
    this.renderConversation();
    this.renderMine();
    if (switching && !reload) $('#composer-text').focus();
    await Promise.all([this.loadMessages(generation), this.loadCall(generation), this.loadCoBrowsing(generation)]);
  }

  /** Closes the open conversation (it ended elsewhere, was deleted, or the session changed). */
  close(reason) {
    this.generation += 1;
    this.current = undefined;
    this.clearConversation();
    this.renderConversation();
    this.renderMine();
    if (reason) notify(reason, 'notice');
  }

  clearConversation() {
    this.messages.clear();
    this.checkedThrough = 0;
    this.loading = undefined;
    clearTimeout(this.gapTimer);
    fill($('#messages'));
    this.resetCall();
    this.setCoBrowsing(undefined);
    this.composerNote('');
  }

  renderConversation() {
    const conversation = this.current;
    const open = Boolean(conversation);
    $('#conversation-title').textContent = open ? conversation.topic || 'Untitled conversation' : 'No conversation open';
    const visitor = conversation?.participants.find((p) => p.type === 'CONTEXT_PERSON');
    $('#conversation-meta').textContent = open ? `${conversation.state} · with ${visitor?.displayName || 'a visitor'} · ${conversation.id}` : '';
    const active = open && conversation.state === 'ACTIVE';
    $('#conversation-actions').hidden = !active;
    $('#composer').hidden = !active;
    $('#conversation').dataset.state = conversation?.state || '';
    $('#conversation').dataset.conversationId = conversation?.id || '';
  }

  nameOf(personId) {
    if (personId === this.me.id) return 'You';
    const participant = this.current?.participants.find((p) => p.personId === personId);
    return participant?.displayName || 'Visitor';
  }

  /** The whole history from the server, merged with what arrives live meanwhile; then exactly the server's. */
  async loadMessages(generation) {
    const id = this.current.id;
    const load = { live: new Set() };
    this.loading = load;
    const fetched = new Set();
    let highestFetched = 0;
    try {
      let after = 0;
      for (;;) {
        const page = await get(conversationPath(id, '/messages'), { after, limit: HISTORY_PAGE });
        if (generation !== this.generation || this.stopped) return;
        const messages = page.messages || [];
        for (const message of messages) {
          fetched.add(message.sequence);
          highestFetched = Math.max(highestFetched, message.sequence);
          this.merge(message);
        }
        if (!page.hasMore || messages.length === 0) break;
        after = messages[messages.length - 1].sequence;
      }
      // What the server does not hold goes, unless it arrived live while the history was read.
      for (const sequence of [...this.messages.keys()]) {
        if (!fetched.has(sequence) && !load.live.has(sequence)) this.removeMessage(sequence);
      }
      this.checkedThrough = highestFetched;
    } catch (error) {
      if (!error.stale && generation === this.generation) notify(error.message);
    } finally {
      if (this.loading === load) this.loading = undefined;
    }
    if (generation === this.generation) this.checkGaps();
  }

  /** Puts a message in its place by sequence, once (a later copy of the same message replaces it). */
  merge(message, { live = false } = {}) {
    if (!this.current || (message.conversationId && message.conversationId !== this.current.id)) return;
    if (live && this.loading) this.loading.live.add(message.sequence);
    const known = this.messages.get(message.sequence);
    if (known && JSON.stringify(known) === JSON.stringify(message)) return;
    this.messages.set(message.sequence, message);
    const list = $('#messages');
    const node = this.messageNode(message);
    if (known) {
      [...list.children].find((item) => Number(item.dataset.sequence) === message.sequence)?.replaceWith(node);
      return;
    }
    const nearBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 48;
    if (message.sequence > this.highestShown()) {
      // The usual case, history and live alike: the newest so far goes last.
      list.append(node);
      if (nearBottom || message.senderPersonId === this.me.id) list.scrollTop = list.scrollHeight;
    } else {
      list.insertBefore(node, [...list.children].find((item) => Number(item.dataset.sequence) > message.sequence) || null);
      if (nearBottom) list.scrollTop = list.scrollHeight;
    }
    if (live) this.checkGaps();
  }

  highestShown() {
    return Number($('#messages').lastElementChild?.dataset.sequence) || 0;
  }

  removeMessage(sequence) {
    this.messages.delete(sequence);
    [...$('#messages').children].find((item) => Number(item.dataset.sequence) === sequence)?.remove();
  }

  messageNode(message) {
    const mine = message.senderPersonId === this.me.id;
    return el('li', {
      class: `message ${mine ? 'mine' : 'theirs'}${message.internal ? ' internal' : ''}`,
      dataset: { sequence: message.sequence, messageId: message.id },
    },
    el('span', { class: 'sender' }, this.nameOf(message.senderPersonId)),
    el('span', { class: 'time' }, formatTime(message.timestamp)),
    message.file ? el('p', { class: 'text' }, fileLink(message)) : el('p', { class: 'text' }, message.text));
  }

  /** The first sequence missing above what the server was last read to, if any. */
  firstMissing() {
    const highest = this.highestShown();
    for (let sequence = this.checkedThrough + 1; sequence < highest; sequence += 1) {
      if (!this.messages.has(sequence)) return sequence;
    }
    return undefined;
  }

  /** A live message arrived past a hole (an event still delayed, or lost): read the hole from the server. */
  checkGaps() {
    if (this.loading || this.firstMissing() === undefined) return;
    clearTimeout(this.gapTimer);
    this.gapTimer = setTimeout(() => this.fillGaps(), 250);
  }

  async fillGaps() {
    const missing = this.firstMissing();
    if (!this.current || this.loading || missing === undefined || this.stopped) return;
    const { generation } = this;
    const id = this.current.id;
    try {
      let after = missing - 1;
      for (;;) {
        const page = await get(conversationPath(id, '/messages'), { after, limit: HISTORY_PAGE });
        if (generation !== this.generation || this.stopped) return;
        const messages = page.messages || [];
        for (const message of messages) this.merge(message);
        if (messages.length) after = messages[messages.length - 1].sequence;
        if (!page.hasMore || messages.length === 0) break;
      }
      this.checkedThrough = Math.max(this.checkedThrough, after);
    } catch (error) {
      if (!error.stale) notify(error.message);
    }
  }

  // --- the composer -----------------------------------------------------------------------------

  composerKey(event) {
    // Enter sends, Shift+Enter starts a new line.
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $('#composer').requestSubmit();
    }
  }

  composerNote(text) {
    const note = $('#composer-note');
    note.textContent = text;
    note.hidden = !text;
    $('#composer-text').setAttribute('aria-invalid', text ? 'true' : 'false');
  }

  /** Says so while the text is over the limit: nothing is cut. */
  checkLength() {
    const size = utf8Length($('#composer-text').value);
    this.composerNote(size > MAX_MESSAGE_BYTES ? this.overLimit(size) : '');
  }

  overLimit(size) {
    return `Too long to send: ${size.toLocaleString('en')} bytes, the limit is ${MAX_MESSAGE_BYTES.toLocaleString('en')} bytes (16 KiB of UTF-8). `
      + 'Shorten it, or send it as a file. Nothing was cut.';
  }

  async send(button) {
    const input = $('#composer-text');
    const text = input.value; // sent as typed: leading and trailing spaces are the writer's
    if (!this.current) return;
    if (!text.trim()) {
      this.composerNote(text ? 'Not sent: the message is only spaces or line breaks.' : '');
      input.focus();
      return;
    }
    const size = utf8Length(text);
    if (size > MAX_MESSAGE_BYTES) {
      this.composerNote(this.overLimit(size));
      input.focus();
      return;
    }
    const conversationId = this.current.id;
    const clientMessageId = crypto.randomUUID();
    const message = await guarded(() => post(conversationPath(conversationId, '/messages'), { text, clientMessageId }), button);
    if (message && !this.stopped) {
      if (input.value === text) input.value = '';
      this.composerNote('');
      if (this.current?.id === conversationId) this.merge(message, { live: true });
    }
    input.focus();
  }

  async sendFile(button) {
    const input = $('#composer-file');
    const file = input.files?.[0];
    if (!file || !this.current) return;
    const conversationId = this.current.id;
    const message = await guarded(() => uploadFile(conversationId, file), button);
    if (message && !this.stopped) {
      input.value = '';
      if (this.current?.id === conversationId) this.merge(message, { live: true });
    }
  }

  async end(button) {
    if (!this.current) return;
    const conversation = await guarded(() => post(conversationPath(this.current.id, '/end'), {}), button);
    if (conversation && !this.stopped && this.current?.id === conversation.id) {
      this.current = conversation;
      this.setCoBrowsing(undefined);
      this.renderConversation();
      this.scheduleRefresh();
    }
  }

  // --- calls ------------------------------------------------------------------------------------

  resetCall() {
    this.call = undefined;
    $('#call-status').textContent = '';
    $('#call-end').hidden = true;
    $('#call-answer').hidden = true;
    $('#call-decline').hidden = true;
  }

  showCall(call) {
    if (!this.current || call.conversationId !== this.current.id) return;
    // An older call's late answer does not replace a newer call.
    if (this.call && this.call.id !== call.id && (call.initiationTimestamp ?? 0) < (this.call.initiationTimestamp ?? 0)) return;
    this.call = call;
    this.noteCall(call);
    const ended = call.state === 'ENDED';
    const reason = call.endReason ? ` (${call.endReason})` : '';
    // A call the visitor started rings here: answer or decline it.
    const incoming = call.state === 'RINGING' && call.initiatorPersonId !== this.me.id;
    const from = call.initiatorPersonId !== this.me.id ? ' from the visitor' : '';
    $('#call-status').textContent = `${call.callType} call${from}: ${call.state}${reason}`;
    $('#call-end').hidden = ended || incoming;
    $('#call-answer').hidden = !incoming;
    $('#call-decline').hidden = !incoming;
  }

  /** The open conversation's call as the server has it now (a call ringing after a reload can be answered). */
  async loadCall(generation) {
    const id = this.current.id;
    const found = await guarded(() => searchCalls([equals('CONVERSATION_ID', id), isNull('END_TIMESTAMP')], 1));
    if (generation !== this.generation || this.stopped) return;
    const callId = found?.items?.[0]?.id || (this.call && this.call.state !== 'ENDED' ? this.call.id : undefined);
    if (!callId) return;
    const call = await guarded(() => get(`/agent/v1/calls/${encodeURIComponent(callId)}`));
    if (call && generation === this.generation && !this.stopped) this.showCall(call);
  }

  async answerCall(action, button) {
    if (!this.call) return;
    const call = await guarded(() => post(`/agent/v1/calls/${encodeURIComponent(this.call.id)}/${action}`), button);
    if (call && !this.stopped) this.showCall(call);
  }

  async startCall(callType, button) {
    if (!this.current) return;
    const call = await guarded(() => post(conversationPath(this.current.id, '/calls'), { callType }), button);
    if (call && !this.stopped) this.showCall(call);
  }

  async endCall(button) {
    if (!this.call) return;
    const call = await guarded(() => post(`/agent/v1/calls/${encodeURIComponent(this.call.id)}/end`), button);
    if (call && !this.stopped) this.showCall(call);
  }

  /** Keeps the list of visitors' calls ringing here current from a call (or a call event's detail). */
  noteCall({ id, conversationId, state, initiatorPersonId, callType }) {
    if (state === 'RINGING' && initiatorPersonId !== this.me.id) this.ringing.set(id, { conversationId, callType });
    else this.ringing.delete(id);
    this.renderMine();
  }

  /** Visitors' calls ringing in the agent's conversations, from the server (after a reload, a reconnect). */
  async loadRinging() {
    const found = await guarded(() => searchCalls([isNull('END_TIMESTAMP'), isNull('ACCEPT_TIMESTAMP')], 100));
    if (!found || this.stopped) return;
    const mine = new Set(this.mine.map((conversation) => conversation.id));
    this.ringing = new Map((found.items || [])
      .filter((call) => mine.has(call.conversationId) && call.initiatorPersonId !== this.me.id)
      .map((call) => [call.id, { conversationId: call.conversationId, callType: call.callType }]));
    this.renderMine();
  }

  /** A visible notice, with a way there, for each call ringing in a conversation that is not open. */
  renderNotices() {
    const calls = [...this.ringing.entries()].filter(([, call]) => call.conversationId !== this.current?.id);
    const shown = JSON.stringify([calls, this.mine.map((c) => [c.id, c.topic])]);
    if (shown === this.noticesShown) return;
    this.noticesShown = shown;
    $('#call-notices').hidden = calls.length === 0;
    fill($('#call-notice-list'), calls.map(([callId, call]) => {
      const topic = this.mine.find((conversation) => conversation.id === call.conversationId)?.topic || 'another conversation';
      return el('li', { dataset: { callId, conversationId: call.conversationId } },
        `Incoming ${String(call.callType || 'audio').toLowerCase()} call in “${topic}” `,
        el('button', { type: 'button', class: 'call-notice-open', onclick: () => this.open(call.conversationId) },
          'Open the conversation', el('span', { class: 'visually-hidden' }, ` ${topic} to answer`)));
    }));
  }

  // --- co-browsing ------------------------------------------------------------------------------

  async requestCoBrowsing(button) {
    if (!this.current) return;
    const session = await guarded(() => post(conversationPath(this.current.id, '/cobrowsing')), button);
    if (session && !this.stopped) this.setCoBrowsing(session);
  }

  async stopCoBrowsing(button) {
    if (!this.coBrowsingId) return;
    const session = await guarded(() => post(`/agent/v1/cobrowsing/${encodeURIComponent(this.coBrowsingId)}/stop`), button);
    if (session && !this.stopped) this.setCoBrowsing(undefined);
  }

  /** The open conversation's co-browsing session, if one runs (asked of the server, so a session
   *  started before the desk was opened is found too): its view again, and Stop. */
  async loadCoBrowsing(generation) {
    const id = this.current.id;
    let session;
    try {
      session = await get(conversationPath(id, '/cobrowsing'));
    } catch {
      session = undefined; // none open (404), or gone with a reset
    }
    if (generation !== this.generation || this.stopped) return;
    if (session && session.state !== 'ENDED') this.setCoBrowsing(session);
    else this.setCoBrowsing(undefined);
  }

  setCoBrowsing(session) {
    if (!session || session.state === 'ENDED') {
      this.coBrowsingId = undefined;
      this.viewer.close();
      $('#cobrowse').hidden = true;
      $('#cobrowse-request').hidden = false;
      $('#cobrowse-stop').hidden = true;
      return;
    }

    this.coBrowsingId = session.id;
    $('#cobrowse').hidden = false;
    $('#cobrowse').dataset.sessionId = session.id;
    $('#cobrowse-request').hidden = true;
    $('#cobrowse-stop').hidden = false;
    this.viewer.watch(session.id);
    this.onCoBrowsingSession(session.id);
  }

  // --- live events ------------------------------------------------------------------------------

  async handle(event, { replayed = false } = {}) {
    if (this.stopped) return;
    const conversationId = event.conversation?.id || event.message?.conversationId || event.detail?.conversationId;
    const isCurrent = Boolean(this.current) && conversationId === this.current.id;
    if (CONVERSATION_EVENTS.has(event.type)) {
      this.scheduleRefresh();
      if (isCurrent && event.type === 'conversation.deleted') {
        this.close('The conversation was deleted.');
      } else if (isCurrent && event.conversation) {
        this.current = { ...this.current, ...event.conversation };
        this.renderConversation();
        if (event.conversation.state === 'ENDED') this.setCoBrowsing(undefined);
      }
    } else if (event.type === 'conversation.new_message' || event.type === 'conversation.message_updated') {
      if (isCurrent && event.message) this.merge({ conversationId, ...event.message }, { live: true });
      if (event.type === 'conversation.new_message') this.scheduleRefresh();
    } else if (event.type.startsWith('conversation.call.')) {
      const callId = event.detail?.callId;
      if (!callId) return;
      const detail = event.detail;
      const state = event.type === 'conversation.call.started' ? (detail.callState || 'RINGING') : detail.callState || 'ENDED';
      this.noteCall({ id: callId, conversationId, state, initiatorPersonId: detail.initiatorPersonId, callType: detail.callType });
      if (isCurrent || this.call?.id === callId) {
        const generation = this.generation;
        const call = await guarded(() => get(`/agent/v1/calls/${encodeURIComponent(callId)}`));
        if (call && generation === this.generation && !this.stopped) this.showCall(call);
      }
    } else if (event.type.startsWith('cobrowsing.')) {
      const sessionId = event.detail?.coBrowsingSessionId;
      if (!sessionId || !conversationId || !isCurrent) return;
      if (event.type === 'cobrowsing.ended') {
        if (sessionId === this.coBrowsingId) {
          this.setCoBrowsing(undefined);
          if (!replayed) notify('Co-browsing ended', 'notice');
        }
      } else if (sessionId !== this.coBrowsingId) {
        this.setCoBrowsing({ id: sessionId, conversationId, state: event.type === 'cobrowsing.started' ? 'ACTIVE' : 'REQUESTED' });
      }
    } else if (event.type === 'agent.presence_changed' && event.detail?.presence) {
      this.presence = event.detail.presence;
      if (this.presenceSettled) this.showPresence(this.presence);
    }
  }
}
