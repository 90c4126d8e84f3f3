import CollabCore
import CollabWire
import Hummingbird

/// What every started app does with its own client, the same on the device API (a visitor's app) and
/// the agent API (an agent's app): read and stop the client, report the app state, register the
/// device's push tokens and fetch its notification keys. Each surface's authentication admits only its
/// own kind of app, so the routes need not tell them apart.
struct AppClientRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.get("clients/current") { _, context in
            let session = try env.client(context)
            return JSONBody.response(ClientView(session))
        }
        group.delete("clients/current") { _, context in
            let session = try env.client(context)
            try await env.write(context.principal) { state, changes, _ throws(CollabError) in state.stopClient(token: session.id, changes: &changes) }
            env.events.disconnect(sessionKey: session.id)
            return noContent
        }
        group.put("clients/current/app-state") { request, context in
            let session = try env.client(context)
            let body = try await env.decode(AppStateRequest.self, from: request)
            let appState = try AppState(parsing: body.appState, field: "appState")
            let updated = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.updateClient(token: session.id, context: op, changes: &changes) { $0.appState = appState }
            }
            return JSONBody.response(ClientView(updated))
        }
        group.put("clients/current/push") { request, context in
            let session = try env.client(context)
            let body = try await env.decode(PushRegistrationRequest.self, from: request)
            let response = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                let device = try state.registerPush(body, clientToken: session.id, context: op, changes: &changes)
                return PushRegistrationResponse(device: DeviceView(device), keys: device.keys?.views(now: op.now) ?? [])
            }
            return JSONBody.response(response)
        }
        group.delete("clients/current/push") { _, context in
            let session = try env.client(context)
            try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.disablePush(clientToken: session.id, context: op, changes: &changes)
            }
            return noContent
        }
        group.get("clients/current/notification-keys") { _, context in
            let session = try env.client(context)
            let now = env.clock.now()
            let keys = try env.read(context.principal) { state throws(CollabError) in
                guard let device = state.device(forClient: session.id), let ring = device.keys else {
                    throw CollabError(.notFound, "the device has no notification key; register with an encrypted version")
                }
                return ring.views(now: now)
            }
            return JSONBody.response(keys)
        }
    }
}
