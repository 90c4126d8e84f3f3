import CollabCore
import CollabWire

extension DeviceView {
    init(_ device: Device) {
        self.init(
            id: device.id, personId: device.personId, deviceId: device.deviceId, os: device.device.os, osVersion: device.device.osVersion,
            appId: device.device.appId, apnsToken: device.apnsToken, pushKitToken: device.pushKitToken, fcmToken: device.fcmToken,
            version: device.version.rawValue, apnsEnvironment: device.apnsEnvironment, notificationCount: device.notificationCount,
            keyId: device.keys?.current.id, registeredAt: device.registeredAt, updatedAt: device.updatedAt
        )
        nativeInboundCall = device.nativeInboundCall
    }
}

extension NotificationKeyRing {
    /// The keys a device may hold at `now`: current first, then the previous one during the overlap.
    func views(now: Timestamp) -> [NotificationKeyView] {
        var views = [NotificationKeyView(keyId: current.id, key: current.material, createdAt: current.createdAt)]
        if let previous, let until = previousValidUntil, until > now {
            views.append(NotificationKeyView(keyId: previous.id, key: previous.material, createdAt: previous.createdAt, validUntil: until))
        }
        return views
    }
}

extension CallView {
    /// The call as `viewerPersonId` sees it: a participant gets its own token for the provider's session.
    init(_ call: Call, viewer viewerPersonId: String? = nil) {
        self.init(
            id: call.id, conversationId: call.conversationId, callType: call.callType.rawValue, initiatorPersonId: call.initiatorPersonId,
            state: call.state.rawValue, initiationTimestamp: call.initiationTimestamp, acceptTimestamp: call.acceptTimestamp,
            endTimestamp: call.endTimestamp, endReason: call.endReason, timeoutAt: call.timeoutAt, serviceProviderType: call.serviceProvider
        )
        guard let viewerPersonId, call.participations.contains(where: { $0.personId == viewerPersonId }), let provider = call.serviceProvider,
            let sessionId = call.providerSessionId, let token = CallCredential.providerToken(for: call, personId: viewerPersonId)
        else { return }
        providerSession = CallProviderSession(provider: provider, sessionId: sessionId, token: token, serverURL: Self.serverURL(of: provider))
    }

    /// Where a provider's call module would connect; `.invalid` hosts, as nothing is served there.
    private static func serverURL(of provider: String) -> String {
        switch provider {
        case CallServiceProvider.liveKit: "wss://livekit.mock-collab.invalid"
        case CallServiceProvider.acs: "https://acs.mock-collab.invalid"
        default: "https://api.opentok.mock-collab.invalid"
        }
    }
}

/// Parses a call type.
func parseCallType(_ text: String) throws(CollabError) -> Call.CallType {
    guard let type = Call.CallType(rawValue: text) else { throw .badRequest("callType must be AUDIO or VIDEO") }
    return type
}
