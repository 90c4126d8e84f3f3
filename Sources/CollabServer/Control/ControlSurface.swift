import CollabCore
import Hummingbird

extension Surface {
    /// The control API: the control token, HTTP Basic or a login session (the console's inspector);
    /// the Web API `Error` body; account admins and above for every operation (what changes the whole
    /// server needs a super admin, said per operation), confined to their own account.
    static let control = Surface(faultName: nil, credentials: [.basic, .session, .controlToken], errors: .webAPI, role: .admin)
}

/// The control API under `/_mock/v1`, for tests and tools: reset, seed, journal, clock, snapshots,
/// fault rules, the push outbox and devices, co-browsing statistics.
struct ControlSurface {
    let environment: CollabEnvironment
    let webhooks: WebhookDispatcher

    func register(on router: Router<CollabRequestContext>, stack: SurfaceStack) {
        let env = environment
        let routes = stack.routes(.control, under: "_mock/v1", on: router)
        ControlRoutes(environment: env, webhooks: webhooks).register(on: routes.group())  // reset, seed, journal, clock, stats, configuration
        SnapshotRoutes(environment: env).register(on: routes.group())
        EntityInspectorRoutes(environment: env).register(on: routes.group())  // declared entities by kind
        FaultRoutes(environment: env).register(on: routes.group())
        PushRoutes(environment: env).registerControl(on: routes.group())  // outbox, devices, keys, push settings
        CoBrowsingRoutes(environment: env).registerControl(on: routes.group())
        routes.answerTheRest()
    }
}
