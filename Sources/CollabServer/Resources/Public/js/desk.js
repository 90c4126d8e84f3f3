// The agent desk: presence, the queue with its named-area filter, accept, live chat, end, calls and
// co-browsing, all kept current by the live event stream.
//
// The open conversation's messages are kept by sequence: the history load, live events (replayed ones
// included, and late ones under a delay) and the answers to what the agent sends are merged into one
// ordered list, each message once. A hole in the sequence is filled from the server, and after a
// reconnect or a `resync` the conversation is read again so the list is exactly the server's.
import { get, post, put, webAPI } from './api.js';
import { $, el, fill, formatDateTime, formatTime, guarded, notify, plural, report } from './dom.js';
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
/** How many ended conversations "Recently ended" shows, newest first. */
const ENDED_SHOWN = 10;
// The tab's desk state across a reload: the open conversation, the ticked named areas, the unread
// counts. Ids only, never a secret; removed when the session ends (forgetDeskState).
const DESK_STATE = 'mockcollab.console.desk';

const CALL_END_REASONS = {
  DECLINED: 'declined',
  LAST_MANDATORY_PARTICIPANT_LEFT: 'hung up',
  CONVERSATION_ENDED: 'the conversation ended',
  NOT_ANSWERED: 'not answered in time (missed)',
  ABORTED_BY_INITIATOR: 'the caller hung up before it was answered',
  ANSWERED_ELSEWHERE: 'answered on another device',
};
const CONVERSATION_END_REASONS = {
  ENDED_BY_PARTICIPANT: 'ended by a participant',
  TIMED_OUT: 'timed out',
  ABANDONED: 'abandoned',
};
/** A call's end reason in words; an unknown one as the server names it. */
export const callEndReason = (reason) => CALL_END_REASONS[reason] || String(reason).toLowerCase().replace(/_/g, ' ');

function readDeskState() {
  try {
    return JSON.parse(sessionStorage.getItem(DESK_STATE)) || {};
  } catch {
    return {};
  }
}

/** The session ended: the next user's desk starts from nothing. */
export function forgetDeskState() {
  sessionStorage.removeItem(DESK_STATE);
}

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
  /**
   * `conversationId`: the conversation to open at start (from the address), else the one this tab had
   * open before a reload. `onShowDesk` brings the desk view forward; `onChange` is told when the open
   * conversation changes; `onAttention({ total, ringing })` when what waits for the agent changes.
   */
  constructor({ me, fresh = false, conversationId, onCoBrowsingSession, onShowDesk = () => {}, onChange = () => {}, onAttention = () => {} }) {
    this.me = me;
    this.fresh = fresh;
    this.onCoBrowsingSession = onCoBrowsingSession;
    this.onShowDesk = onShowDesk;
    this.onChange = onChange;
    this.onAttention = onAttention;
    this.saved = readDeskState();
    this.wanted = conversationId || this.saved.conversationId;
    // Until start() has read it again, the conversation open before the reload is still the one the
    // address and the saved state name (a second reload meanwhile comes back to it too).
    this.restoring = this.wanted;
    this.areaNames = new Map(); // named area id and siteId → its name
    this.visitors = new Map(); // personId → what tells the visitor apart (device id), once looked up
    this.unread = new Map(Object.entries(this.saved.unread || {})); // conversationId → messages not seen yet
    this.newQueued = new Set(); // requests queued while the desk was not in view
    this.notes = new Map(); // conversationId → internal notes, once its history was read
    this.ended = []; // the agent's ended conversations, newest first
    this.endedBy = new Map(); // conversationId → 'you' | 'elsewhere', as this page saw it end
    this.hungUp = new Set(); // calls this page ended
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
      [$('#composer-internal'), 'change', () => this.showComposerMode()],
      [document, 'visibilitychange', () => this.viewChanged()],
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
    }, undefined, 'Reading the named areas');
    if (this.stopped) return;
    this.live.start(this.selectedAreas());
    this.showComposerMode();
    this.renderAttention();
    await this.reloadAll();
    // The conversation the address names, or the one open before a reload.
    if (this.wanted && !this.current && !this.stopped) await this.open(this.wanted, { reload: true, restoring: true });
    // Whatever came of it, the address and the saved state now name what is open (an open() that
    // succeeded has said so already).
    this.restoring = undefined;
    if (this.stopped || this.current) return;
    this.saveState();
    this.onChange(undefined);
  }

  /** The conversation the address names: the open one, or the one being opened again after a reload. */
  get addressed() {
    return this.current?.id ?? this.restoring;
  }

  stop() {
    this.stopped = true;
    this.live.stop();
    this.viewer.close();
    for (const [node, type, handler] of this.listeners) node.removeEventListener(type, handler);
    clearTimeout(this.refreshTimer);
    clearTimeout(this.gapTimer);
    // The call notices sit outside the desk view (they show over the inspector too).
    $('#call-notices').hidden = true;
    fill($('#call-notice-list'));
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
    const ticked = new Set(this.saved.areas || []);
    const boxes = areas.map((area) => {
      const value = area.siteId || area.id;
      const id = `area-${value.replace(/[^A-Za-z0-9_-]/g, '_')}`;
      const name = area.name || area.siteId || area.id;
      this.areaNames.set(area.id, name);
      if (area.siteId) this.areaNames.set(area.siteId, name);
      return el('div', { class: 'check' },
        el('input', { type: 'checkbox', id, name: 'namedArea', value, checked: ticked.has(value) }),
        el('label', { for: id }, area.name ? `${area.name} (${value})` : value));
    });
    fill(fieldset, legend, $('#area-filter-empty'), boxes);
  }

  selectedAreas() {
    return [...document.querySelectorAll('#area-filter input[name=namedArea]:checked')].map((box) => box.value);
  }

  filterChanged() {
    this.live.setNamedAreas(this.selectedAreas());
    this.saveState();
    this.loadQueue();
  }

  /** What a reload of this tab brings back (sessionStorage: this tab only, ids only). */
  saveState() {
    if (this.stopped) return;
    const unread = Object.fromEntries([...this.unread].filter(([, count]) => count > 0));
    sessionStorage.setItem(DESK_STATE, JSON.stringify({ conversationId: this.addressed, areas: this.selectedAreas(), unread }));
  }

  /** Everything again from the server: at start, after a reconnect or resync, after a reset. */
  async reloadAll() {
    if (this.stopped) return;
    await Promise.all([this.loadQueue(), this.loadMine(), this.loadEnded()]);
    await this.loadRinging();
    if (this.current && !this.stopped) await this.open(this.current.id, { reload: true });
  }

  scheduleRefresh() {
    // Bursts of events (queued, then active, then updated) cost one reload.
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      this.loadQueue();
      this.loadMine();
      if (this.endedChanged) this.loadEnded();
      this.endedChanged = false;
    }, 150);
  }

  async loadQueue() {
    await guarded(async () => {
      const areas = this.selectedAreas();
      const queue = await get('/agent/v1/queue', { namedAreas: areas.join(',') });
      if (this.stopped) return;
      const entries = queue.entries || [];
      $('#queue-empty').hidden = entries.length > 0;
      fill($('#queue-list'), entries.map((entry) => this.queueCard(entry)));
    }, undefined, 'Reading the queue');
  }

  /** Where a request was addressed: the named area's name (not the recipient type). */
  recipientText(recipient) {
    if (!recipient) return '';
    if (recipient.type === 'NAMED_AREA') return `area ${this.areaNames.get(recipient.id) || recipient.id}`;
    if (recipient.type === 'AGENT' && recipient.id === this.me.id) return 'for you';
    return `${String(recipient.type).toLowerCase().replace(/_/g, ' ')} ${recipient.id || ''}`.trim();
  }

  /** The visitor of a conversation, told apart from others: their device, else a short person id. */
  visitorNode(conversation) {
    const visitor = conversation.participants?.find((p) => p.type === 'CONTEXT_PERSON');
    const personId = visitor?.personId || conversation.contextPersonId;
    const node = el('span', { class: 'visitor', dataset: { personId: personId || '' } }, this.visitorText(visitor, personId));
    if (personId && !visitor?.displayName) this.lookUpVisitor(personId);
    return node;
  }

  visitorText(visitor, personId) {
    if (visitor?.displayName) return visitor.displayName;
    const known = this.visitors.get(personId);
    if (typeof known === 'string') return known;
    return personId ? `Visitor ${personId.slice(0, 6)}` : 'Visitor';
  }

  /** Reads the visitor's person once (Web API persons/{id}/read): a device's visitor is named by it. */
  async lookUpVisitor(personId) {
    if (this.visitors.has(personId)) return;
    this.visitors.set(personId, undefined);
    let person;
    try {
      person = await get(webAPI(`persons/${encodeURIComponent(personId)}/read`));
    } catch {
      return; // the short id stays
    }
    if (this.stopped) return;
    const source = person?.sourceId || '';
    const label = person?.displayName
      || (source.startsWith('device:') ? `Visitor on device ${source.slice('device:'.length)}` : source ? `Visitor ${source}` : undefined);
    if (!label) return;
    this.visitors.set(personId, label);
    for (const node of document.querySelectorAll('.visitor[data-person-id]')) {
      if (node.dataset.personId === personId) node.textContent = label;
    }
    if (this.current) this.renderConversation();
  }

  queueCard(entry) {
    const conversation = entry.conversation;
    return el('li', { class: 'card', dataset: { conversationId: conversation.id } },
      el('div', { class: 'card-title' }, conversation.topic || 'Untitled conversation'),
      el('div', { class: 'muted' }, this.visitorNode(conversation), ` · ${this.recipientText(conversation.recipient)} · queued ${formatTime(conversation.queuedAt)}`),
      el('button', { type: 'button', class: 'accept', onclick: (event) => this.accept(conversation.id, event.currentTarget) },
        'Accept', el('span', { class: 'visually-hidden' }, ` ${conversation.topic || 'conversation'}`)));
  }

  async loadMine() {
    await guarded(async () => {
      const list = await get('/agent/v1/conversations', { state: 'ACTIVE' });
      if (this.stopped) return;
      const previous = new Map(this.mine.map((conversation) => [conversation.id, conversation]));
      this.mine = list.conversations || [];
      for (const conversation of this.mine) previous.delete(conversation.id);
      // Unread counts only for conversations still yours (one that ended or went elsewhere drops out).
      const ids = new Set(this.mine.map((conversation) => conversation.id));
      for (const id of [...this.unread.keys()]) if (!ids.has(id)) this.unread.delete(id);
      this.saveState();
      // One that left the list ended (or went elsewhere): "Recently ended" reads the server again.
      if (previous.size) this.loadEnded();
      this.renderMine();
    }, undefined, 'Reading your conversations');
  }

  /** The agent's ended conversations (GET /agent/v1/conversations?state=ENDED), newest first. */
  async loadEnded() {
    await guarded(async () => {
      // The server lists ended conversations last ended first: the first page is the newest.
      const list = await get('/agent/v1/conversations', { state: 'ENDED', limit: ENDED_SHOWN });
      if (this.stopped) return;
      this.ended = list.conversations || [];
      this.renderEnded();
    }, undefined, 'Reading your ended conversations');
  }

  /** "2 messages · 1 internal note": the server's count leaves notes out; the desk adds those it has read. */
  countText(conversation) {
    const notes = this.notes.get(conversation.id);
    return `${plural(conversation.messageCount ?? 0, 'message')}${notes ? ` · ${plural(notes, 'internal note')}` : ''}`;
  }

  renderMine() {
    const ringingIn = new Set([...this.ringing.values()].map((call) => call.conversationId));
    this.renderNotices();
    this.renderAttention();
    // Re-rendered only when something shown changed: a list that keeps its nodes keeps focus too.
    const shown = JSON.stringify([this.current?.id, [...ringingIn], [...this.unread], [...this.notes],
      this.mine.map((c) => [c.id, c.topic, c.messageCount])]);
    if (shown === this.mineShown) return;
    this.mineShown = shown;
    $('#mine-empty').hidden = this.mine.length > 0;
    $('#mine-hint').hidden = this.mine.length === 0;
    fill($('#mine-list'), this.mine.map((conversation) => {
      const unread = this.unread.get(conversation.id) || 0;
      return el('li', { class: `card${unread ? ' unread' : ''}`, dataset: { conversationId: conversation.id } },
        el('button', {
          type: 'button', class: 'link', 'aria-current': this.current?.id === conversation.id ? 'true' : undefined,
          onclick: () => this.open(conversation.id),
        }, conversation.topic || 'Untitled conversation', unread ? el('span', { class: 'visually-hidden' }, ` (${plural(unread, 'new message')})`) : null),
        el('span', { class: 'muted' }, this.visitorNode(conversation), ` · ${this.countText(conversation)}`),
        unread ? el('span', { class: 'badge unread', 'aria-hidden': 'true' }, `${unread} new`) : null,
        ringingIn.has(conversation.id) ? el('span', { class: 'badge ringing' }, 'call ringing') : null);
    }));
  }

  renderEnded() {
    const shown = JSON.stringify([this.current?.id, this.ended.map((c) => [c.id, c.topic, c.endedAt, c.messageCount])]);
    if (shown === this.endedShown) return;
    this.endedShown = shown;
    $('#ended-empty').hidden = this.ended.length > 0;
    fill($('#ended-list'), this.ended.map((conversation) => el('li', { class: 'card', dataset: { conversationId: conversation.id } },
      el('button', {
        type: 'button', class: 'link', 'aria-current': this.current?.id === conversation.id ? 'true' : undefined,
        onclick: () => this.open(conversation.id),
      }, conversation.topic || 'Untitled conversation'),
      el('span', { class: 'muted' }, this.visitorNode(conversation), ` · ended ${formatTime(conversation.endedAt)} · ${this.countText(conversation)}`))));
  }

  // --- attention: unread messages, ringing calls, new requests ----------------------------------

  /** Whether the agent can see the desk now (its view shown, the page in front). */
  deskInView() {
    return !$('#desk-view').hidden && document.visibilityState === 'visible';
  }

  /** The desk came into view (tab switch, page in front): what is in front of the agent is seen. */
  viewChanged() {
    if (this.stopped) return;
    if (this.deskInView()) {
      this.newQueued.clear();
      if (this.current) this.unread.delete(this.current.id);
      this.saveState();
    }
    // The open conversation's ringing call gets its notice while the desk is out of view.
    this.renderMine();
  }

  noteUnread(conversationId) {
    this.unread.set(conversationId, (this.unread.get(conversationId) || 0) + 1);
    this.saveState();
    this.renderMine();
  }

  /** The count in the page title and, while the inspector is shown, on the Agent desk tab. */
  renderAttention() {
    if (this.stopped) return;
    const unread = [...this.unread.values()].reduce((sum, count) => sum + count, 0);
    const ringing = this.ringing.size;
    const total = unread + ringing + this.newQueued.size;
    this.onAttention({ total, ringing, unread, queued: this.newQueued.size });
  }

  async accept(id, button) {
    const conversation = await guarded(() => post(conversationPath(id, '/accept')), button);
    if (!conversation || this.stopped) return;
    this.scheduleRefresh();
    await this.open(conversation.id);
  }

  // --- the open conversation ------------------------------------------------------------------

  /** Opens a conversation (or reads the open one again): its messages, current call and co-browsing. */
  async open(id, { reload = false, restoring = false } = {}) {
    this.generation += 1;
    const generation = this.generation;
    let conversation;
    try {
      conversation = await get(conversationPath(id));
    } catch (error) {
      if (error.stale || generation !== this.generation || this.stopped) return;
      if (error.status === 404 && this.current?.id === id) this.close('The conversation is gone (deleted, or the server was reset).');
      else if (error.status === 404 && restoring) this.close(`The conversation that was open (${id}) is gone: deleted, or the server was reset.`);
      else report(error, 'Opening the conversation');
      return;
    }
    if (generation !== this.generation || this.stopped) return;
    const switching = this.current?.id !== conversation.id;
    this.current = conversation;
    if (switching) this.clearConversation();
    if (this.deskInView()) this.unread.delete(conversation.id);
    this.saveState();
    this.onChange(conversation.id);
    this.renderConversation();
    this.renderMine();
    this.renderEnded();
    if (switching && !reload) $('#composer-text').focus();
    await Promise.all([this.loadMessages(generation), this.loadCall(generation), this.loadCoBrowsing(generation)]);
  }

  /** Closes the open conversation (it ended elsewhere, was deleted, or the session changed). */
  close(reason) {
    this.generation += 1;
    this.current = undefined;
    this.restoring = undefined;
    this.clearConversation();
    this.saveState();
    this.onChange(undefined);
    this.renderConversation();
    this.renderMine();
    this.renderEnded();
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
    // Each conversation starts with the composer writing to the visitor.
    $('#composer-internal').checked = false;
    this.showComposerMode();
  }

  renderConversation() {
    const conversation = this.current;
    const open = Boolean(conversation);
    $('#conversation-title').textContent = open ? conversation.topic || 'Untitled conversation' : 'No conversation open';
    const meta = $('#conversation-meta');
    if (open) fill(meta, `${conversation.state} · with `, this.visitorNode(conversation), ` · ${conversation.id}`);
    else fill(meta);
    const ended = $('#conversation-ended');
    ended.hidden = conversation?.state !== 'ENDED';
    ended.textContent = conversation?.state === 'ENDED' ? this.endedText(conversation) : '';
    const active = open && conversation.state === 'ACTIVE';
    $('#conversation-actions').hidden = !active;
    $('#composer').hidden = !active;
    $('#conversation').dataset.state = conversation?.state || '';
    $('#conversation').dataset.conversationId = conversation?.id || '';
  }

  /** Who ended it (the server's `endedBy`; absent when the server ended it) and when. */
  endedText(conversation) {
    const when = conversation.endedAt ? ` at ${formatDateTime(conversation.endedAt)}` : '';
    const by = this.enderOf(conversation);
    if (by) return `${by} ended this conversation${when}. Its history stays readable here.`;
    const reason = conversation.endReason ? ` (${CONVERSATION_END_REASONS[conversation.endReason] || conversation.endReason})` : '';
    return `This conversation ended${when}${reason}. Its history stays readable here.`;
  }

  /** "You", the participant's name, "The visitor", or undefined when nobody (the server) ended it. */
  enderOf(conversation) {
    const personId = conversation?.endedBy;
    if (!personId) return this.endedBy.get(conversation?.id) === 'you' ? 'You' : undefined;
    if (personId === this.me.id) return 'You';
    const participant = conversation.participants?.find((p) => p.personId === personId);
    if (participant?.displayName) return participant.displayName;
    return participant?.type === 'CONTEXT_PERSON' || participant?.type === 'SECONDARY_VISITOR' ? 'The visitor' : 'Another agent';
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
      this.countNotes();
    } catch (error) {
      if (generation === this.generation) report(error, 'Reading the messages');
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
    if (live && message.internal && !this.loading) this.countNotes();
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
      dataset: message.internal ? { sequence: message.sequence, messageId: message.id, internal: 'true' } : { sequence: message.sequence, messageId: message.id },
    },
    message.internal ? el('span', { class: 'note-label', title: 'Agents only: the visitor never sees it' }, 'Internal note') : null,
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
      report(error, 'Reading missed messages');
    }
  }

  /** The open conversation's internal notes, for its count in the lists. */
  countNotes() {
    if (!this.current) return;
    const notes = [...this.messages.values()].filter((message) => message.internal).length;
    if (this.notes.get(this.current.id) === notes) return;
    this.notes.set(this.current.id, notes);
    this.renderMine();
    this.renderEnded();
  }

  // --- the composer -----------------------------------------------------------------------------

  composerKey(event) {
    // Enter sends, Shift+Enter starts a new line.
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $('#composer').requestSubmit();
    }
  }

  /** The composer writes to the visitor, or (ticked "Internal note") to agents only. */
  showComposerMode() {
    const internal = $('#composer-internal').checked;
    $('#composer').dataset.internal = String(internal);
    $('#composer-text').placeholder = internal
      ? 'Write an internal note: agents only, the visitor never sees it (Enter adds it)'
      : 'Write a message… (Enter sends, Shift+Enter starts a new line)';
    $('#composer-send').textContent = internal ? 'Add note' : 'Send';
    $('#file-send').textContent = internal ? 'Add file as note' : 'Send file';
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
    const internal = $('#composer-internal').checked;
    const body = internal ? { text, clientMessageId, internal: true } : { text, clientMessageId };
    const message = await guarded(() => post(conversationPath(conversationId, '/messages'), body), button,
      internal ? 'Adding the note' : 'Sending the message');
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
    if (!this.current) return;
    if (!file) {
      this.composerNote('No file chosen: pick one with the file field first, then press this button again.');
      input.focus();
      return;
    }
    const conversationId = this.current.id;
    const internal = $('#composer-internal').checked;
    const message = await guarded(() => uploadFile(conversationId, file, { internal }), button,
      `${internal ? 'Adding' : 'Sending'} the file ${file.name}`);
    if (message && !this.stopped) {
      input.value = '';
      this.composerNote('');
      if (this.current?.id === conversationId) this.merge(message, { live: true });
    }
  }

  async end(button) {
    if (!this.current) return;
    const { id, topic } = this.current;
    const inCall = this.call && this.call.state !== 'ENDED';
    const question = `End “${topic || 'Untitled conversation'}”? The visitor can no longer write in it`
      + `${inCall ? `, and the ${String(this.call.callType || '').toLowerCase()} call in progress ends too` : ''}`
      + `${this.coBrowsingId ? ', co-browsing stops' : ''}. It stays readable under Recently ended.`;
    if (!window.confirm(question)) return;
    // Said before asking: the live event may come before the answer.
    this.endedBy.set(id, 'you');
    const conversation = await guarded(() => post(conversationPath(id, '/end'), {}), button, 'Ending the conversation');
    if (!conversation) this.endedBy.delete(id);
    this.endedChanged = true;
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
    const reason = call.endReason ? ` (${this.callEndText(call)})` : '';
    // A call the visitor started rings here: answer or decline it.
    const incoming = call.state === 'RINGING' && call.initiatorPersonId !== this.me.id;
    const from = call.initiatorPersonId !== this.me.id ? ' from the visitor' : '';
    $('#call-status').textContent = `${call.callType} call${from}: ${call.state}${reason}`;
    $('#call-end').hidden = ended || incoming;
    $('#call-answer').hidden = !incoming;
    $('#call-decline').hidden = !incoming;
  }

  callEndText(call) {
    if (call.endReason === 'LAST_MANDATORY_PARTICIPANT_LEFT') return this.hungUp.has(call.id) ? 'you hung up' : 'the other side hung up';
    return callEndReason(call.endReason);
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
    this.hungUp.add(this.call.id);
    const call = await guarded(() => post(`/agent/v1/calls/${encodeURIComponent(this.call.id)}/end`), button, 'Ending the call');
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

  /** A visible notice, with a way there, for each call ringing in a conversation that is not open (or not in view). */
  renderNotices() {
    // The open conversation's call shows in it, unless the desk is not in view (the inspector is).
    const inView = this.deskInView();
    const calls = [...this.ringing.entries()].filter(([, call]) => call.conversationId !== this.current?.id || !inView);
    const shown = JSON.stringify([calls, this.mine.map((c) => [c.id, c.topic])]);
    if (shown === this.noticesShown) return;
    this.noticesShown = shown;
    $('#call-notices').hidden = calls.length === 0;
    fill($('#call-notice-list'), calls.map(([callId, call]) => {
      const topic = this.mine.find((conversation) => conversation.id === call.conversationId)?.topic || 'another conversation';
      return el('li', { dataset: { callId, conversationId: call.conversationId } },
        `Incoming ${String(call.callType || 'audio').toLowerCase()} call in “${topic}” `,
        el('button', { type: 'button', class: 'call-notice-open', onclick: () => { this.onShowDesk(); this.open(call.conversationId); } },
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
      if (event.type === 'conversation.ended' || event.type === 'conversation.deleted') this.endedChanged = true;
      if (event.type === 'conversation.queued' && !replayed && !this.deskInView()) {
        this.newQueued.add(conversationId);
        this.renderAttention();
      }
      if (event.type === 'conversation.ended' && !replayed) this.endedElsewhere(conversationId, event.conversation);
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
      if (event.type === 'conversation.new_message') {
        this.noteLiveMessage(conversationId, event.message, { replayed, isCurrent });
        this.scheduleRefresh();
      }
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

  /** A new message from someone else: unread unless the agent is looking at it; a note counted. */
  noteLiveMessage(conversationId, message, { replayed, isCurrent }) {
    if (!message || replayed) return;
    if (message.internal && !isCurrent && this.notes.has(conversationId)) {
      this.notes.set(conversationId, this.notes.get(conversationId) + 1);
      this.renderMine();
    }
    if (message.senderPersonId === this.me.id) return;
    const mine = isCurrent || this.mine.some((conversation) => conversation.id === conversationId);
    if (mine && !(isCurrent && this.deskInView())) this.noteUnread(conversationId);
  }

  /** One of the agent's conversations ended, not by this desk: said once, and kept under Recently ended. */
  endedElsewhere(conversationId, conversation) {
    if (this.endedBy.get(conversationId) === 'you') return;
    const known = this.mine.find((c) => c.id === conversationId) || (this.current?.id === conversationId ? this.current : undefined);
    if (!known) return;
    this.endedBy.set(conversationId, 'elsewhere');
    this.unread.delete(conversationId);
    this.saveState();
    const topic = conversation?.topic || known.topic || 'Untitled conversation';
    const by = this.enderOf(conversation) || 'The server';
    notify(`${by} ended “${topic}”. It is under Recently ended.`, 'notice');
  }
}
