// The inspector: devices, the live push outbox (plain content beside the payload as sent), the
// request journal, webhook deliveries, co-browsing stats, the configuration cascade, the Web API's entities
// (entities.js), and controls.
// Admins see their own account; super admins every account and the controls.
import { ApiError, get, post, request } from './api.js';
import { $, attempt, el, fill, formatDateTime, formatTime, guarded, showResult } from './dom.js';
import { EntitiesPanel } from './entities.js';
import { FaultsPanel } from './faults.js';

const short = (text, length = 14) => (text && text.length > length ? `${text.slice(0, length)}…` : text || '');
const pretty = (value) => {
  if (typeof value === 'string') {
    try { return JSON.stringify(JSON.parse(value), null, 2); } catch { return value; }
  }
  return JSON.stringify(value, null, 2);
};
const cell = (text, attributes = {}) => el('td', attributes, text);

export class Inspector {
  constructor({ me, onDataChanged = () => {} }) {
    this.me = me;
    // The server's data changed under the desk (reset, seed, restore): it reads everything again.
    this.onDataChanged = onDataChanged;
    this.superAdmin = me.role === 'SUPER_ADMIN';
    this.pushes = new Map();
    this.source = undefined;
    this.loaded = false;
    this.listeners = [
      [$('#inspector-panels'), 'click', (event) => this.refreshClicked(event)],
      [$('#journal-filter'), 'submit', (event) => { event.preventDefault(); this.loadJournal(event.submitter); }],
      [$('#cbstats-form'), 'submit', (event) => { event.preventDefault(); this.loadCoBrowsingStats(event.submitter); }],
      [$('#config-form'), 'submit', (event) => { event.preventDefault(); this.loadConfiguration(event.submitter); }],
      [$('#clock-form'), 'submit', (event) => { event.preventDefault(); this.advanceClock(event.submitter); }],
      [$('#clock-freeze'), 'click', (event) => this.toggleFreeze(event.currentTarget)],
      [$('#reset-form'), 'submit', (event) => { event.preventDefault(); this.reset(event.submitter); }],
      [$('#seed-form'), 'submit', (event) => { event.preventDefault(); this.applySeed(event.submitter); }],
    ];
    for (const [node, type, handler] of this.listeners) node.addEventListener(type, handler);
    this.faults = new FaultsPanel({ me, onDataChanged });
    this.entities = new EntitiesPanel({ me });
  }

  static allowed(me) {
    return ['ADMIN', 'TECHNICAL_ADMIN', 'SUPER_ADMIN'].includes(me.role);
  }

  /** Loads everything the first time the inspector is shown; later shows only reload on request. */
  async show() {
    $('#controls').disabled = !this.superAdmin;
    $('#controls-denied').hidden = this.superAdmin;
    $('#config-form').elements.account.disabled = !this.superAdmin;
    if (this.loaded) return;
    this.loaded = true;
    this.faults.show();
    this.entities.show();
    this.followPushes();
    await Promise.all([
      this.loadDevices(), this.loadJournal(), this.loadWebhooks(), this.loadConfiguration(), this.loadClock(), this.entities.load(),
    ]);
  }

  stop() {
    this.faults.stop();
    this.entities.stop();
    if (this.source) this.source.close();
    this.source = undefined;
    for (const [node, type, handler] of this.listeners) node.removeEventListener(type, handler);
  }

  refreshClicked(event) {
    const button = event.target.closest('button[data-refresh]');
    if (!button) return;
    // The button goes along: a refresh you asked for that works clears an earlier error.
    const actions = { devices: () => this.loadDevices(button), pushes: () => this.reloadPushes(button), journal: () => this.loadJournal(button),
      webhooks: () => this.loadWebhooks(button), faults: () => this.faults.load(button), entities: () => this.entities.load(button) };
    actions[button.dataset.refresh]?.();
  }

  async loadDevices(button) {
    await guarded(async () => {
      // The first page (1,000 devices, by record id): a load test's thousands would swamp the table.
      const devices = await get('/_mock/v1/devices');
      const more = devices.length >= 1000 ? [el('tr', {}, el('td', { colspan: 7, class: 'muted' },
        `The first ${devices.length} devices by record id; the control API pages through the rest.`))] : [];
      fill($('#devices-table tbody'), devices.length ? more.concat(devices.map((device) => el('tr', {},
        cell(device.deviceId), cell(short(device.personId), { title: device.personId }),
        cell([device.os, device.osVersion].filter(Boolean).join(' ')), cell(device.version),
        cell(el('ul', { class: 'plain' },
          device.apnsToken && el('li', { title: device.apnsToken }, `APNs ${short(device.apnsToken, 12)}`),
          device.pushKitToken && el('li', { title: device.pushKitToken }, `PushKit ${short(device.pushKitToken, 12)}`),
          device.fcmToken && el('li', { title: device.fcmToken }, `FCM ${short(device.fcmToken, 12)}`),
          !device.apnsToken && !device.pushKitToken && !device.fcmToken && el('li', {}, 'none'))),
        cell(device.keyId ? short(device.keyId) : '—', { title: device.keyId || '' }),
        cell(formatDateTime(device.updatedAt))))) : el('tr', {}, el('td', { colspan: 7, class: 'muted' }, 'No devices registered.')));
    }, button);
  }

  /** The outbox: the newest entries, then every new or updated entry as it happens (server-sent events). */
  followPushes() {
    this.reloadPushes();
    const source = new EventSource('/_mock/v1/pushes/stream');
    this.source = source;
    source.addEventListener('push', (message) => {
      try {
        this.putPush(JSON.parse(message.data));
        this.renderPushes();
      } catch {
        // A malformed event is skipped; the next reload shows the truth.
      }
    });
    let opened = false;
    source.onopen = () => {
      $('#pushes-live').dataset.on = 'true';
      // The stream does not replay: after a reconnect, catch up on what happened meanwhile.
      if (opened) this.reloadPushes();
      opened = true;
    };
    source.onerror = () => { $('#pushes-live').dataset.on = 'false'; };
  }

  async reloadPushes(button) {
    await guarded(async () => {
      const page = await get('/_mock/v1/pushes', { limit: 100 });
      for (const entry of page.pushes || []) this.putPush(entry);
      this.renderPushes();
    }, button);
  }

  putPush(entry) {
    this.pushes.set(entry.id, entry);
    if (this.pushes.size > 200) this.pushes.delete(Math.min(...this.pushes.keys()));
  }

  renderPushes() {
    const entries = [...this.pushes.values()].sort((a, b) => b.id - a.id);
    $('#pushes-empty').hidden = entries.length > 0;
    fill($('#pushes-list'), entries.map((entry) => {
      const sealed = entry.version !== 'NOT_ENCRYPTED';
      return el('li', { class: 'push', dataset: { kind: entry.kind, state: entry.state } },
        el('details', {},
          el('summary', {},
            el('strong', {}, entry.kind), ` ${entry.transport} · ${entry.version} · `, el('span', { class: 'badge' }, entry.state),
            el('span', { class: 'muted' }, ` ${entry.deviceId} · ${formatTime(entry.createdAt)}`),
            el('div', { class: 'push-text' }, `${entry.content.title}: ${entry.content.text}`)),
          el('div', { class: 'push-body' },
            el('section', {},
              el('h4', {}, sealed ? 'Decrypted content (what the sealed data holds)' : 'Content'),
              el('pre', {}, pretty(entry.content))),
            el('section', {},
              el('h4', {}, `Payload as sent${entry.keyId ? ` (key ${short(entry.keyId)})` : ''}, ${entry.payloadBytes} bytes${entry.truncated ? ', text cut to fit' : ''}`),
              el('pre', {}, pretty(entry.payload))),
            entry.attempts?.length ? el('section', {}, el('h4', {}, 'Attempts'), el('pre', {}, pretty(entry.attempts))) : null)));
    }));
  }

  async loadJournal(button) {
    const form = $('#journal-filter').elements;
    await guarded(async () => {
      const page = await get('/_mock/v1/journal', { method: form.method.value, path: form.path.value, status: form.status.value, limit: 200 });
      const entries = (page.entries || []).slice().reverse();
      fill($('#journal-table tbody'), entries.length ? entries.map((entry) => el('tr', { dataset: { status: String(entry.status)[0] } },
        cell(formatTime(entry.timestamp)), cell(entry.method),
        cell(entry.query ? `${entry.path}?${entry.query}` : entry.path, { class: 'path' }),
        cell(String(entry.status), { class: 'status-code' }), cell(String(entry.durationMicros)),
        cell(short(entry.accountId || '—'), { title: entry.accountId || '' }))) : el('tr', {}, el('td', { colspan: 6, class: 'muted' }, 'Nothing matches.')));
    }, button);
  }

  async loadWebhooks(button) {
    await guarded(async () => {
      const page = await get('/_mock/v1/webhooks/deliveries', { limit: 100 });
      const deliveries = (page.deliveries || []).slice().reverse();
      fill($('#webhooks-table tbody'), deliveries.length ? deliveries.map((delivery) => {
        const last = delivery.attempts[delivery.attempts.length - 1];
        const outcome = last ? (last.status ? `last: ${last.status}` : `last: ${last.error || 'no answer'}`) : 'not tried yet';
        return el('tr', {}, cell(delivery.eventType), cell(delivery.endpoint, { class: 'path' }), cell(delivery.state),
          cell(`${delivery.attempts.length} (${outcome})`), cell(formatDateTime(delivery.createdAt)));
      }) : el('tr', {}, el('td', { colspan: 5, class: 'muted' }, 'No deliveries. Register a webhook with webhookregistrations/create.')));
    }, button);
  }

  /** Fills in the session the desk is watching. */
  setCoBrowsingSession(id) {
    $('#cbstats-session').value = id;
  }

  async loadCoBrowsingStats(button) {
    const id = $('#cbstats-session').value.trim();
    if (!id) return;
    await guarded(async () => {
      let stats;
      try {
        stats = await get(`/_mock/v1/cobrowsing/${encodeURIComponent(id)}/stats`);
      } catch (error) {
        // Named as typed, not as the server echoes the encoded path.
        if (error.status === 404) throw new ApiError(404, `no co-browsing session has the id “${id}”`, error.type);
        throw error;
      }
      const facts = [
        ['Accepted', stats.accepted], ['Throttled', stats.throttled], ['Duplicates', stats.duplicates], ['Rejected', stats.rejected],
        ['Bytes', stats.bytes], ['Effective fps', Number(stats.effectiveFps).toFixed(2)], ['Max fps', stats.maxFps],
        ['Gap p50 / p99 (ms)', `${stats.gapP50 ?? '—'} / ${stats.gapP99 ?? '—'}`], ['Private areas', (stats.privateAreas || []).length],
      ];
      fill($('#cbstats'), facts.flatMap(([name, value]) => [el('dt', {}, name), el('dd', {}, String(value))]));
    }, button);
  }

  async loadConfiguration(button) {
    const form = $('#config-form').elements;
    await guarded(async () => {
      const view = await get('/_mock/v1/configuration', { account: form.account.value, namedArea: form.namedArea.value, apiKey: form.apiKey.value });
      const head = $('#config-table thead tr');
      fill(head, el('th', { scope: 'col' }, 'Property'), view.layers.map((layer) => el('th', { scope: 'col' }, layer.scope)), el('th', { scope: 'col' }, 'Effective'));
      const keys = Object.keys(view.resolved).sort();
      fill($('#config-table tbody'), keys.length ? keys.map((key) => {
        const resolved = view.resolved[key];
        return el('tr', {}, el('th', { scope: 'row' }, key),
          view.layers.map((layer) => cell(layer.properties[key] ?? '', { class: layer.scope === resolved.scope ? 'wins' : '' })),
          cell(`${resolved.value} (${resolved.scope})`));
      }) : el('tr', {}, el('td', { colspan: view.layers.length + 2, class: 'muted' }, 'No properties set at these scopes.')));
    }, button);
  }

  async loadClock() {
    await guarded(async () => this.showClock(await get('/_mock/v1/clock')));
  }

  showClock(clock) {
    this.clock = clock;
    const offset = clock.offset ? `, ${clock.offset > 0 ? '+' : ''}${clock.offset} ms from real time` : '';
    $('#clock-state').textContent = `Server time ${formatDateTime(clock.now)}${offset}${clock.frozen ? ', frozen' : ''}`;
    $('#clock-freeze').textContent = clock.frozen ? 'Unfreeze' : 'Freeze';
  }

  async advanceClock(button) {
    const line = $('#controls-result');
    const text = String($('#clock-form').elements.advance.value).trim();
    // Whole milliseconds only: "1.5" is not quietly taken as 1.
    if (!/^-?\d{1,12}$/.test(text)) {
      showResult(line, `Clock not moved: “${text}” is not a whole number of milliseconds (such as 31000).`, 'error');
      return;
    }
    const millis = Number(text);
    if (millis === 0) { showResult(line, 'Clock not moved: advancing by 0 ms changes nothing.', 'error'); return; }
    if (millis < 0 && !window.confirm(`Move the server clock BACK by ${(-millis).toLocaleString('en')} ms? Sessions, tokens, calls and `
      + 'fault rules timed on the server clock see time run backwards.')) {
      showResult(line, '');
      return;
    }
    await attempt(line, 'Moving the clock', async () => {
      const clock = await post('/_mock/v1/clock', { advanceMillis: millis });
      this.showClock(clock);
      const moved = millis > 0 ? `advanced by ${millis.toLocaleString('en')} ms` : `moved back by ${(-millis).toLocaleString('en')} ms`;
      return `Clock ${moved}: server time ${formatDateTime(clock.now)}.`;
    }, button);
  }

  async toggleFreeze(button) {
    const freeze = !this.clock?.frozen;
    await attempt($('#controls-result'), freeze ? 'Freezing the clock' : 'Unfreezing the clock', async () => {
      this.showClock(await post('/_mock/v1/clock', { frozen: freeze }));
      return freeze ? 'Clock frozen.' : 'Clock running again.';
    }, button);
  }

  async reset(button) {
    const account = $('#reset-form').elements.account.value.trim();
    const scope = account ? `account ${account}` : 'every account';
    if (!window.confirm(`Reset ${scope}? Its data is removed and the startup seed applied again.`)) return;
    const done = await attempt($('#controls-result'), `Reset of ${scope}`, async () => {
      const result = await post('/_mock/v1/reset', account ? { account } : {});
      return `Reset ${scope}: ${result.created} created, ${result.updated} updated, ${result.unchanged} unchanged.`;
    }, button);
    if (done) {
      this.pushes.clear();
      this.renderPushes();
      this.onDataChanged();
    }
  }

  async applySeed(button) {
    const file = $('#seed-file').files[0];
    const text = file ? await file.text() : $('#seed-text').value;
    const line = $('#controls-result');
    if (!text.trim()) { showResult(line, 'Seed not applied: choose a seed file or paste one.', 'error'); return; }
    const json = text.trim().startsWith('{');
    const applied = await attempt(line, 'Applying the seed', async () => {
      const result = await request('POST', '/_mock/v1/seed', { body: text, contentType: json ? 'application/json' : 'application/yaml' });
      return `Seed applied: ${result.created} created, ${result.updated} updated, ${result.unchanged} unchanged.`;
    }, button);
    if (applied) this.onDataChanged();
  }
}
