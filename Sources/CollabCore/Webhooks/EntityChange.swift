public import CollabWire

/// An account, API key, user or person as it was created, updated or deleted: the vendor's
/// `*ModificationEvent` webhooks (`account`, `api_key`, `user`, `person`, and each declared kind's) carry it.
public struct EntityChange: Sendable, Equatable, Codable {
    /// `EntityModificationAction`.
    public enum Action: String, Sendable, Equatable, Codable {
        case create = "CREATE"
        case update = "UPDATE"
        case delete = "DELETE"
    }

    /// The entity after the change (before it, for a deletion).
    public enum Entity: Sendable, Equatable, Codable {
        case account(Account)
        case user(User)
        case person(Person)
        /// A declared entity (see ``DeclaredEntity``): its kind's webhook event and its wire object.
        case declared(event: String, entity: JSONValue)

        /// The vendor's webhook event name for changes of this kind of entity.
        public var eventName: String {
            switch self {
            case .declared(let event, _): event
            case .account: "account"
            case .user: "user"
            case .person: "person"
            }
        }
    }

    public var action: Action
    public var entity: Entity
}

extension AccountState {
    /// Emits the webhook-only modification event of an entity of this account, and records the admin
    /// changes (accounts, API keys, users) in the audit log.
    mutating func emitEntity(_ action: EntityChange.Action, _ entity: EntityChange.Entity, context: OperationContext, changes: inout ChangeSet) {
        var event = DomainEvent(kind: .entityModified, accountId: accountId, timestamp: context.now)
        event.entity = EntityChange(action: action, entity: entity)
        changes.emit(event)
        let audited: (type: String, id: String, name: String)? =
            switch entity {
            // A deleted account's log goes with it.
            case .account(let account): action == .delete ? nil : ("Account", account.id, account.name)
            case .user(let user): ("User", user.id, user.username)
            case .person, .declared: nil
            }
        guard let audited else { return }
        recordAudit(
            AuditedChange(action: action, entityType: audited.type, entityId: audited.id, entityName: audited.name), by: nil, context: context,
            changes: &changes
        )
    }

    /// Emits the webhook-only participation events a conversation change implies: new participations are
    /// created and activated at once (the mock has no onboarding per participant); ended ones left;
    /// a changed `hidden` flag hidden or unhidden.
    /// Each event carries the time its participation joined or left.
    func emitParticipationChanges(from old: Conversation?, to new: Conversation, changes: inout ChangeSet) {
        func event(_ kind: DomainEvent.Kind, _ participation: Participation) {
            let time =
                kind == .participationCreated || kind == .participationActivated
                ? participation.joinedTimestamp : participation.leftTimestamp ?? participation.joinedTimestamp
            var event = DomainEvent(kind: kind, accountId: new.accountId, timestamp: time, conversation: new)
            event.participation = participation
            changes.emit(event)
        }
        let before = old?.participants ?? []
        for participation in new.participants {
            guard
                let previous = before.first(where: {
                    $0.personId == participation.personId && $0.type == participation.type && $0.joinedTimestamp == participation.joinedTimestamp
                })
            else {
                // The same participation in another role (a new context person) is updated, not new.
                let inAnotherRole = { (other: Participation) in
                    other.personId == participation.personId && other.joinedTimestamp == participation.joinedTimestamp
                        && other.type != participation.type
                }
                if before.contains(where: inAnotherRole), !new.participants.contains(where: inAnotherRole) {
                    event(.participationUpdated, participation)
                    continue
                }
                event(.participationCreated, participation)
                if participation.state != .ended { event(.participationActivated, participation) }
                continue
            }
            if previous.state != .ended, participation.state == .ended { event(.participationLeft, participation) }
            if previous.hidden != participation.hidden { event(participation.hidden ? .participationHidden : .participationUnhidden, participation) }
        }
    }
}
