import CollabCore
import CollabWire
import Hummingbird

/// `/webhookregistrations/{registrationId}/sendPing`: the registration's create, read, getByName,
/// readMultiple, search, update and delete come from its declaration (``WebhookRegistration``,
/// ``EntityRoutes``).
struct WebhookRoutes {
    let environment: CollabEnvironment
    let dispatcher: WebhookDispatcher

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let dispatcher = self.dispatcher
        group.operation(.post, ":registrationId/sendPing", role: .admin) { _, context in
            let id = try context.pathParameter("registrationId")
            let registration = try env.read(context.principal) { state throws(CollabError) in
                try state.entity(WebhookRegistration.self, id, for: context.principal)
            }
            dispatcher.ping(registration)
            return noContent
        }
    }
}
