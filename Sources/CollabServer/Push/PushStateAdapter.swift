import CollabCore
import CollabPush

/// Gives the push pipeline the devices and settings it needs, and removes tokens endpoints reject.
struct PushStateAdapter: PushStateAccess {
    let environment: CollabEnvironment

    func target(for intent: PushIntent) -> (device: Device, settings: PushSettings?)? {
        try? environment.read(account: intent.accountId) { state in
            state.devices[intent.deviceRecordId].map { ($0, state.pushSettings[intent.accountId]) }
        }
    }

    func removeToken(accountId: String, deviceRecordId: String, transport: PushTransport, token: String) async {
        _ = try? await environment.write(account: accountId) { state, changes, op throws(CollabError) in
            state.removeRejectedToken(deviceRecordId: deviceRecordId, transport: transport, token: token, context: op, changes: &changes)
        }
    }
}

extension AccountState {
    /// Forgets a token an endpoint reported as unregistered (only if it is still the registered one).
    mutating func removeRejectedToken(deviceRecordId: String, transport: PushTransport, token: String, context: OperationContext, changes: inout ChangeSet) {
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
}
