// The inspector's entities: what the Web API keeps beyond the built-in entities (the entity layer's kinds,
// conversation invitations, and for super admins the global file-upload interceptors). A kind picker with
// each kind's count for the account in view, a page of the picked kind's entities, each entity's JSON on
// click. The server decides what the session sees (an admin: their own account; secrets as the Web API
// shows them to the caller); everything here is rendered as text.
import { get } from './api.js';
import { $, el, fill, formatDateTime, guarded } from './dom.js';

const PAGE_SIZE = 100;
/** The most entities kept on the page at once: "More" stops there (page on with the control API). */
const MAX_SHOWN = 1000;
// The property that names an entity, by kind: the first one an entity has.
const NAME_PROPERTIES = ['name', 'title', 'displayName', 'domainName', 'key', 'nickname'];

const cell = (text, attributes = {}) => el('td', attributes, text);

function nameOf(entity) {
  for (const property of NAME_PROPERTIES) {
    if (typeof entity[property] === 'string' && entity[property]) return entity[property];
  }
  return '—';
}

function modifiedAt(entity) {
  return entity.modificationTimestamp ?? entity.creationTimestamp ?? entity.createdTimestamp;
}

export class EntitiesPanel {
  constructor({ me }) {
    this.superAdmin = me.role === 'SUPER_ADMIN';
    this.items = [];
    this.kinds = new Map();
    this.nextOffset = undefined;
    this.generation = 0;
    this.listeners = [
      [$('#entities-form'), 'submit', (event) => { event.preventDefault(); this.load(event.submitter); }],
      [$('#entities-kind'), 'change', () => this.loadEntities()],
      [$('#entities-more'), 'click', (event) => this.loadMore(event.currentTarget)],
      [$('#entities-table'), 'click', (event) => this.entityClicked(event)],
    ];
    for (const [node, type, handler] of this.listeners) node.addEventListener(type, handler);
  }

  show() {
    const account = $('#entities-form').elements.account;
    account.disabled = !this.superAdmin;
    account.placeholder = this.superAdmin ? 'your account' : 'your account only';
  }

  /** Stops listening and empties the panel: the next login must not see this session's entities. */
  stop() {
    for (const [node, type, handler] of this.listeners) node.removeEventListener(type, handler);
    this.clear();
  }

  get account() {
    const field = $('#entities-form').elements.account;
    return field.disabled ? '' : field.value.trim();
  }

  /** Empties the kinds, the list and the JSON (an account that does not answer shows nothing of another's). */
  clear(status = '') {
    this.generation += 1;
    this.kinds = new Map();
    this.shownAccount = undefined;
    this.items = [];
    this.nextOffset = undefined;
    fill($('#entities-kind'));
    fill($('#entities-table tbody'));
    $('#entities-more').hidden = true;
    $('#entities-status').textContent = status;
    this.showDetail(undefined);
  }

  /** The kinds with their counts, then the picked kind's first page. */
  async load(button) {
    const account = this.account;
    this.generation += 1;
    const { generation } = this;
    const kinds = await guarded(() => get('/_mock/v1/entities', { account }), button);
    if (generation !== this.generation) return;
    if (!kinds) {
      this.clear(account ? `Nothing to show for account “${account}”.` : 'Nothing to show.');
      return;
    }
    this.kinds = new Map(kinds.map((kind) => [kind.typeName, kind]));
    this.shownAccount = account; // the kinds' pages are read for the account they were counted for
    const select = $('#entities-kind');
    const picked = select.value;
    fill(select, kinds.map((kind) => el('option', { value: kind.typeName },
      `${kind.typeName} (${kind.count})${kind.scope === 'GLOBAL' ? ' · whole server' : ''}`)));
    const keep = kinds.find((kind) => kind.typeName === picked) || kinds.find((kind) => kind.count > 0) || kinds[0];
    if (keep) select.value = keep.typeName;
    await this.loadEntities();
  }

  async loadEntities() {
    // A page asked for before this reload is dropped when it arrives.
    this.generation += 1;
    this.items = [];
    this.nextOffset = 0;
    this.showDetail(undefined);
    await this.loadMore();
  }

  async loadMore(button) {
    const kind = $('#entities-kind').value;
    if (!kind || this.nextOffset === undefined) return;
    const { generation, nextOffset: offset } = this;
    const page = await guarded(() => get(`/_mock/v1/entities/${encodeURIComponent(kind)}`, { account: this.shownAccount ?? this.account, offset, limit: PAGE_SIZE }), button);
    if (!page || generation !== this.generation) return;
    this.items = this.items.concat(page.items || []).slice(0, MAX_SHOWN);
    this.nextOffset = page.hasMoreItems && this.items.length < MAX_SHOWN ? page.nextOffset : undefined;
    this.render(kind);
  }

  render(kind) {
    fill($('#entities-table tbody'), this.items.length ? this.items.map((entity, index) => el('tr', {},
      cell(el('button', { type: 'button', class: 'link', dataset: { index: String(index) }, 'aria-label': `Show ${kind} ${entity.id} as JSON` },
        entity.id ?? `#${index + 1}`), { class: 'path' }),
      cell(nameOf(entity)),
      cell(formatDateTime(modifiedAt(entity)) || '—')))
      : el('tr', {}, el('td', { colspan: 3, class: 'muted' }, this.kinds.get(kind)?.scope === 'GLOBAL'
        ? `No ${kind} on this server (a whole-server kind: it belongs to no account).`
        : `No ${kind || 'entities'} in this account.`)));
    $('#entities-more').hidden = this.nextOffset === undefined;
    $('#entities-status').textContent = this.items.length ? `${this.items.length} shown${this.nextOffset === undefined ? '' : ', more to load'}.` : '';
  }

  entityClicked(event) {
    const button = event.target.closest('button[data-index]');
    if (!button) return;
    for (const other of document.querySelectorAll('#entities-table button[aria-current]')) other.removeAttribute('aria-current');
    button.setAttribute('aria-current', 'true');
    this.showDetail(this.items[Number(button.dataset.index)]);
  }

  showDetail(entity) {
    $('#entity-detail').hidden = !entity;
    $('#entity-detail-title').textContent = entity ? `${$('#entities-kind').value} ${entity.id ?? ''}` : '';
    $('#entity-json').textContent = entity ? JSON.stringify(entity, null, 2) : '';
  }
}
