public import CollabWire

extension AccountState {
    /// Registers (or re-registers, replacing) the push tokens of the device behind a client session.
    /// An encrypted version gets a notification key if the device has none.
    public mutating func registerPush(
        _ input: PushRegistrationRequest, clientToken: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Device {
        guard let session = clientSessions[clientToken] else { throw .unauthorized("unknown or stopped client") }
        let version = try PushVersion(parsing: input.version)
        let apns = try input.apnsToken.map { token throws(CollabError) in try PushTokens.validateAPNs(token, field: "apnsToken") }
        let pushKit = try input.pushKitToken.map { token throws(CollabError) in try PushTokens.validateAPNs(token, field: "pushKitToken") }
        let fcm = try input.fcmToken.map { token throws(CollabError) in try PushTokens.validateFCM(token) }
        guard apns != nil || pushKit != nil || fcm != nil else { throw .badRequest("register at least one of apnsToken, pushKitToken and fcmToken") }
        let environment = input.apnsEnvironment ?? "sandbox"
        guard environment == "sandbox" || environment == "production" else { throw .badRequest("apnsEnvironment must be sandbox or production") }
        let id = Device.recordId(personId: session.personId, deviceId: session.deviceId)
        var device = devices[id]
            ?? Device(
                id: id, accountId: session.accountId, personId: session.personId, deviceId: session.deviceId, device: session.device,
                version: version, apnsEnvironment: environment, registeredAt: context.now
            )
        // A token belongs to one device: registering it here takes it away from any other record.
        let holders = [apns, pushKit, fcm].compactMap { $0 }.reduce(into: Set<String>()) { $0.formUnion(devices.ids(Indexes.deviceByToken, $1)) }
        for otherId in holders.sorted() where otherId != id {
            guard let other = devices[otherId] else { continue }
            var changed = other
            if let apns, changed.apnsToken == apns { changed.apnsToken = nil }
            if let pushKit, changed.pushKitToken == pushKit { changed.pushKitToken = nil }
            if let fcm, changed.fcmToken == fcm { changed.fcmToken = nil }
            if changed != other {
                storeDevice(changed)
                changes.put(changed)
            }
        }
        device.device = session.device
        device.apnsToken = apns
        device.pushKitToken = pushKit
        device.fcmToken = fcm
        device.version = version
        device.apnsEnvironment = environment
        device.nativeInboundCall = input.nativeInboundCall
        device.agent = session.isAgent ? true : nil
        device.updatedAt = context.now
        if version.isEncrypted, device.keys == nil {
            device.keys = NotificationKeyRing(
                current: NotificationKey(id: context.ids.make(length: 12), material: PushEncryption.makeKeyMaterial(), createdAt: context.now))
        }
        // A person keeps at most ``DeviceLimits/perPerson`` devices: registering one more forgets the one
        // registered least recently (it gets no more pushes), so new device ids in a loop do not grow the account.
        let others = devices.rows(Indexes.deviceByPerson, session.personId).filter { $0.id != id }
        if others.count >= DeviceLimits.perPerson {
            let oldest = others.sorted { ($0.updatedAt, $0.id) < ($1.updatedAt, $1.id) }
            for old in oldest.prefix(others.count - DeviceLimits.perPerson + 1) {
                devices.removeValue(forKey: old.id)
                changes.delete(.device, old.id)
            }
        }
        storeDevice(device)
        changes.put(device)
        return device
    }

    /// Disables push for the device behind a client session: its tokens and key are deleted.
    public mutating func disablePush(clientToken: String, context: OperationContext, changes: inout ChangeSet) throws(CollabError) {
        guard let session = clientSessions[clientToken] else { throw .unauthorized("unknown or stopped client") }
        let id = Device.recordId(personId: session.personId, deviceId: session.deviceId)
        if devices.removeValue(forKey: id) != nil { changes.delete(.device, id) }
    }

    /// Removes a person's devices — all, or those whose app device ids are in `deviceIds` — with their
    /// tokens and notification keys: they get no more pushes. The SDK gives users no way to manage their
    /// devices; a backend does it (the Web API).
    /// - Returns: The devices removed.
    public mutating func removeDevices(
        ofPerson personId: String, deviceIds: Set<String>?, for principal: Principal, changes: inout ChangeSet
    ) throws(CollabError) -> [Device] {
        _ = try person(personId, for: principal)
        let removed = devices.rows(Indexes.deviceByPerson, personId).filter { deviceIds?.contains($0.deviceId) ?? true }.sorted { $0.id < $1.id }
        for device in removed {
            devices.removeValue(forKey: device.id)
            changes.delete(.device, device.id)
        }
        return removed
    }

    /// Stores a changed device record.
    public mutating func setDevice(_ device: Device, changes: inout ChangeSet) {
        storeDevice(device)
        changes.put(device)
    }

    /// The device records of a person.
    public func devices(ofPerson personId: String) -> [Device] {
        devices.rows(Indexes.deviceByPerson, personId)
    }

    /// Up to `limit` devices by record id, after `cursor`: a page costs its own devices, however many
    /// the account holds.
    public func devices(after cursor: String?, limit: Int) -> [Device] {
        devices.ids(in: Indexes.deviceById, after: cursor).prefix(limit).compactMap { devices[$0] }
    }

    /// The device record behind a client session.
    public func device(forClient token: String) -> Device? {
        clientSessions[token].flatMap { devices[Device.recordId(personId: $0.personId, deviceId: $0.deviceId)] }
    }

    /// Rotates a device's notification key; the previous key stays valid for `overlap` milliseconds.
    public mutating func rotateKey(
        deviceRecordId: String, overlap: Int64, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Device {
        guard var device = devices[deviceRecordId] else { throw .notFound("Device", deviceRecordId) }
        guard var ring = device.keys else { throw .conflict("the device does not use encrypted notifications") }
        ring.rotate(
            to: NotificationKey(id: context.ids.make(length: 12), material: PushEncryption.makeKeyMaterial(), createdAt: context.now),
            now: context.now, overlap: overlap)
        device.keys = ring
        device.updatedAt = context.now
        storeDevice(device)
        changes.put(device)
        return device
    }

    /// Rotates a device's key if it is older than `interval`.
    mutating func rotateKeyIfDue(deviceRecordId: String, interval: Int64, overlap: Int64, context: OperationContext, changes: inout ChangeSet) {
        guard let keys = devices[deviceRecordId]?.keys, context.now - keys.current.createdAt >= interval else { return }
        _ = try? rotateKey(deviceRecordId: deviceRecordId, overlap: overlap, context: context, changes: &changes)
    }

    /// The app state of the client running on a device, `nil` when none runs.
    public func appState(of device: Device) -> AppState? {
        clientSession(on: device)?.appState
    }

    /// Sets the account's push sinks.
    public mutating func setPushSettings(_ settings: PushSettings, changes: inout ChangeSet) throws(CollabError) {
        try checkAccount(settings.id)
        try settings.validate()
        pushSettings[settings.id] = settings
        changes.put(settings)
    }

    /// Decides, per device of `personId`, between a push, a UI visibility request and nothing, and
    /// records the pushes. Returns the devices that got a push.
    /// - Parameters:
    ///   - only: The device records to consider (a revoke goes to the devices that rang); `nil`: all.
    ///   - personalize: Adds what is particular to one device (a call's credential for that device).
    @discardableResult
    mutating func notify(
        personId: String, accountId: String, content: PushContent, context: OperationContext, changes: inout ChangeSet,
        countsTowardBadge: Bool = false, only deviceIds: Set<String>? = nil, personalize: ((inout PushContent, Device) -> Void)? = nil
    ) -> [String] {
        var pushed: [String] = []
        guard accountId == self.accountId else { return [] }
        // The person's unread count is the badge; a paused person's pushes are recorded, not sent.
        let badge = countsTowardBadge ? countNotification(personId: personId, conversationId: content.conversationId, changes: &changes) : nil
        let pausedBecause = notificationPauseReason(personId: personId, now: context.now)
        for device in devices.rows(Indexes.deviceByPerson, personId).sorted(by: { $0.id < $1.id }) where device.hasTokens {
            if let only = deviceIds, !only.contains(device.id) { continue }
            guard NotificationPolicy.decide(content.type, appState: appState(of: device)) == .push else { continue }
            var transports = Self.transports(for: content.type, to: device)
            if device.fcmToken != nil { transports.append(.fcm) }
            guard !transports.isEmpty else { continue }
            var payload = content
            personalize?(&payload, device)
            if countsTowardBadge {
                var updated = device
                updated.notificationCount += 1
                storeDevice(updated)
                changes.put(updated)
                payload.notificationCount = badge ?? updated.notificationCount
            }
            var intent = PushIntent(
                accountId: accountId, deviceRecordId: device.id, personId: personId, content: payload, transports: transports, createdAt: context.now
            )
            intent.suppressedReason = pausedBecause
            changes.push(intent)
            pushed.append(device.id)
        }
        // A running app in the foreground with the UI closed is asked to show it (no push for it).
        if NotificationPolicy.decide(content.type, appState: .foregroundUIClosed) == .uiVisibilityRequest {
            var detail: [String: String] = [:]
            if let callId = content.callId { detail["callId"] = callId }
            requestUI(
                personId: personId, reason: content.type.rawValue, conversationId: content.conversationId, detail: detail, context: context,
                changes: &changes)
        }
        return pushed
    }

    /// The APNs transports a push of `kind` takes to `device` (FCM comes on top, when registered). An
    /// incoming call rings by VoIP where the app rings natively, else by an alert push. A revoke goes as a
    /// background push; a device that rang by VoIP and holds no APNs token can only learn that the call
    /// is over by VoIP — with the call's state, so the app reports an unsuccessful call to CallKit, as iOS
    /// requires of every VoIP push.
    private static func transports(for kind: PushKind, to device: Device) -> [PushTransport] {
        switch kind {
        case .incomingCall:
            if device.ringsNatively { return [.apnsVoIP] }
            return device.apnsToken != nil ? [.apns] : []
        case .revokeCall:
            if device.apnsToken != nil { return [.apns] }
            return device.ringsNatively ? [.apnsVoIP] : []
        case .newMessage, .missedCall, .inboundRequest, .revokeInboundRequest, .readMessage:
            return device.apnsToken != nil ? [.apns] : []
        }
    }

    /// Forgets a token a push service reported as unregistered (only if it is still the registered one).
    public mutating func removeRejectedToken(
        deviceRecordId: String, transport: PushTransport, token: String, context: OperationContext, changes: inout ChangeSet
    ) {
        guard var device = devices[deviceRecordId] else { return }
        switch transport {
        case .apns where device.apnsToken == token: device.apnsToken = nil
        case .apnsVoIP where device.pushKitToken == token: device.pushKitToken = nil
        case .fcm where device.fcmToken == token: device.fcmToken = nil
        default: return
        }
        device.updatedAt = context.now
        setDevice(device, changes: &changes)
    }

    /// Resets a person's badge counts on a device (the collaboration UI was opened there); the person's
    /// other devices are told the messages were read.
    mutating func resetBadge(personId: String, deviceId: String, context: OperationContext, changes: inout ChangeSet) {
        let id = Device.recordId(personId: personId, deviceId: deviceId)
        let unread = persons[personId]?.notifications?.counts ?? [:]
        clearNotificationCounts(personId: personId, changes: &changes)
        if !unread.isEmpty { notifyRead(personId: personId, onDevice: id, counts: unread, context: context, changes: &changes) }
        guard var device = devices[id], device.notificationCount != 0 else { return }
        device.notificationCount = 0
        storeDevice(device)
        changes.put(device)
    }

    /// A display name for a person.
    func displayName(of personId: String) -> String {
        persons[personId]?.shownName ?? "Someone"
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}

/// Bounds on registered devices.
public enum DeviceLimits {
    /// Devices one person keeps registered (phones, tablets, reinstalls): registering one more forgets
    /// the one registered or refreshed least recently.
    public static let perPerson = 32
}
