// The agent desk: presence, the queue with its named-area filter, accept, live chat, end, calls and
// co-browsing, all kept current by the live event stream.
import { get, post, put, webAPI } from './api.js';
import { $, el, fill, formatTime, guarded, notify } from './dom.js';
import { LiveEvents } from './live.js';
import { FrameViewer } from './cobrowse.js';
import { fileLink, uploadFile } from './files.js';

const CONVERSATION_EVENTS = new Set([
  'conversation.created', 'conversation.queued', 'conversation.active', 'conversation.requeued', 'conversation.unassigned',
  'conversation.updated', 'conversation.ended', 'conversation.offboarding', 'conversation.deleted',
]);

export class Desk {
  constructor({ me, onCoBrowsingSession }) {
    this.me = me;
    this.onCoBrowsingSession = onCoBrowsingSession;
    this.current = undefined; // the open conversation (a ConversationView)
    this.lastSequence = 0;
    this.call = undefined;
    this.coBrowsingId = undefined;
    this.refreshTimer = undefined;
    this.viewer = new FrameViewer({ image: $('#cobrowse-frame'), onStatus: (text) => { $('#cobrowse-status').textContent = text; } });
    this.live = new LiveEvents({
      onEvent: (event) => this.handle(event),
      onStatus: (status) => { $('#live-status').textContent = `Live events: ${status}`; },
      onResync: () => this.reloadAll(),
    });
    this.bind();
  }

  bind() {
    this.listeners = [
      [$('#presence'), 'change', (event) => guarded(() => put('/agent/v1/presence', { presence: event.target.value }))],
      [$('#area-filter'), 'change', () => this.filterChanged()],
      [$('#composer'), 'submit', (event) => { event.preventDefault(); this.send(); }],
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
    await guarded(async () => {
      const areas = await post(webAPI('namedareas/search'), { $_type: 'NamedAreaQuery' });
      this.renderAreas(areas.items || []);
    });
    await guarded(() => put('/agent/v1/presence', { presence: $('#presence').value }));
    this.live.start(this.selectedAreas());
    await this.reloadAll();
  }

  stop() {
    this.live.stop();
    this.viewer.close();
    for (const [node, type, handler] of this.listeners) node.removeEventListener(type, handler);
    clearTimeout(this.refreshTimer);
  }

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

  async reloadAll() {
    await Promise.all([this.loadQueue(), this.loadMine()]);
    if (this.current) await this.open(this.current.id, { reload: true });
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
      const conversations = list.conversations || [];
      $('#mine-empty').hidden = conversations.length > 0;
      fill($('#mine-list'), conversations.map((conversation) => el('li', { class: 'card' },
        el('button', {
          type: 'button', class: 'link', 'aria-current': this.current?.id === conversation.id ? 'true' : undefined,
          onclick: () => this.open(conversation.id),
        }, conversation.topic || 'Untitled conversation'),
        el('span', { class: 'muted' }, ` ${conversation.messageCount} message(s)`))));
    });
  }

  async accept(id, button) {
    const conversation = await guarded(() => post(`/agent/v1/conversations/${encodeURIComponent(id)}/accept`), button);
    if (!conversation) return;
    this.scheduleRefresh();
    await this.open(conversation.id);
  }

  async open(id, { reload = false } = {}) {
    await guarded(async () => {
      const conversation = await get(`/agent/v1/conversations/${encodeURIComponent(id)}`);
      const switching = this.current?.id !== conversation.id;
      this.current = conversation;
      if (switching || reload) {
        this.lastSequence = 0;
        fill($('#messages'));
        this.resetCall();
        if (switching) this.setCoBrowsing(undefined);
        const page = await get(`/agent/v1/conversations/${encodeURIComponent(id)}/messages`, { limit: 500 });
        for (const message of page.messages || []) this.appendMessage(message);
      }
      this.renderConversation();
      if (switching) $('#composer-text').focus();
    });
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
    this.scheduleRefresh();
  }

  nameOf(personId) {
    if (personId === this.me.id) return 'You';
    const participant = this.current?.participants.find((p) => p.personId === personId);
    return participant?.displayName || 'Visitor';
  }

  appendMessage(message) {
    if (message.sequence <= this.lastSequence) return;
    this.lastSequence = message.sequence;
    const mine = message.senderPersonId === this.me.id;
    const item = el('li', { class: `message ${mine ? 'mine' : 'theirs'}${message.internal ? ' internal' : ''}`, dataset: { sequence: message.sequence } },
      el('span', { class: 'sender' }, this.nameOf(message.senderPersonId)),
      el('span', { class: 'time' }, formatTime(message.timestamp)),
      message.file ? el('p', { class: 'text' }, fileLink(message)) : el('p', { class: 'text' }, message.text));
    const list = $('#messages');
    list.append(item);
    list.scrollTop = list.scrollHeight;
  }

  async send() {
    const input = $('#composer-text');
    const text = input.value.trim();
    if (!text || !this.current) return;
    const clientMessageId = crypto.randomUUID();
    const message = await guarded(() => post(`/agent/v1/conversations/${encodeURIComponent(this.current.id)}/messages`, { text, clientMessageId }));
    if (message) {
      input.value = '';
      this.appendMessage(message);
    }
    input.focus();
  }

  async sendFile(button) {
    const input = $('#composer-file');
    const file = input.files?.[0];
    if (!file || !this.current) return;
    const message = await guarded(() => uploadFile(this.current.id, file), button);
    if (message) {
      input.value = '';
      this.appendMessage(message);
    }
  }

  async end(button) {
    if (!this.current) return;
    const conversation = await guarded(() => post(`/agent/v1/conversations/${encodeURIComponent(this.current.id)}/end`, {}), button);
    if (conversation) {
      this.current = conversation;
      this.setCoBrowsing(undefined);
      this.renderConversation();
      this.scheduleRefresh();
    }
  }

  resetCall() {
    this.call = undefined;
    $('#call-status').textContent = '';
    $('#call-end').hidden = true;
    $('#call-answer').hidden = true;
    $('#call-decline').hidden = true;
  }

  showCall(call) {
    this.call = call;
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

  async answerCall(action, button) {
    if (!this.call) return;
    const call = await guarded(() => post(`/agent/v1/calls/${encodeURIComponent(this.call.id)}/${action}`), button);
    if (call) this.showCall(call);
  }

  async startCall(callType, button) {
    if (!this.current) return;
    const call = await guarded(() => post(`/agent/v1/conversations/${encodeURIComponent(this.current.id)}/calls`, { callType }), button);
    if (call) this.showCall(call);
  }

  async endCall(button) {
    if (!this.call) return;
    const call = await guarded(() => post(`/agent/v1/calls/${encodeURIComponent(this.call.id)}/end`), button);
    if (call) this.showCall(call);
  }

  async requestCoBrowsing(button) {
    if (!this.current) return;
    const session = await guarded(() => post(`/agent/v1/conversations/${encodeURIComponent(this.current.id)}/cobrowsing`), button);
    if (session) this.setCoBrowsing(session);
  }

  async stopCoBrowsing(button) {
    if (!this.coBrowsingId) return;
    const session = await guarded(() => post(`/agent/v1/cobrowsing/${encodeURIComponent(this.coBrowsingId)}/stop`), button);
    if (session) this.setCoBrowsing(undefined);
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
    $('#cobrowse-request').hidden = true;
    $('#cobrowse-stop').hidden = false;
    this.viewer.watch(session.id);
    this.onCoBrowsingSession(session.id);
  }

  async handle(event) {
    const conversationId = event.conversation?.id || event.message?.conversationId || event.detail?.conversationId;
    const isCurrent = this.current && conversationId === this.current.id;
    if (CONVERSATION_EVENTS.has(event.type)) {
      this.scheduleRefresh();
      if (isCurrent && event.conversation) {
        this.current = { ...this.current, ...event.conversation };
        this.renderConversation();
        if (event.conversation.state === 'ENDED') this.setCoBrowsing(undefined);
      }
    } else if (event.type === 'conversation.new_message') {
      if (isCurrent && event.message) this.appendMessage(event.message);
      this.scheduleRefresh();
    } else if (event.type.startsWith('conversation.call.')) {
      const callId = event.detail?.callId;
      if (callId && (isCurrent || this.call?.id === callId)) {
        const call = await guarded(() => get(`/agent/v1/calls/${encodeURIComponent(callId)}`));
        if (call) this.showCall(call);
      }
    } else if (event.type.startsWith('cobrowsing.')) {
      const sessionId = event.detail?.coBrowsingSessionId;
      if (!sessionId || !isCurrent) return;
      if (event.type === 'cobrowsing.ended') {
        if (sessionId === this.coBrowsingId) this.setCoBrowsing(undefined);
        notify('Co-browsing ended', 'notice');
      } else if (event.type === 'cobrowsing.started') {
        this.setCoBrowsing({ id: sessionId, state: 'ACTIVE' });
      }
    } else if (event.type === 'agent.presence_changed' && event.detail?.presence) {
      $('#presence').value = event.detail.presence;
    }
  }
}
