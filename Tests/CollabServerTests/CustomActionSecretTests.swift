import CollabClient
import Foundation
import Testing

/// A custom action's trigger webhook signs its calls to the customer's backend with a secret: agents
/// list the actions (search is the vendor's REGISTERED_USER operation), but only the admins who may
/// read an action see that secret.
@Suite("Custom action secrets")
struct CustomActionSecretTests {
    @Test("search shows an agent the action without its webhook secret, an admin with it")
    func secretIsAdminsOnly() async throws {
        try await InProcessServer.with { server in
            let admin = server.admin("admin", "admin").transport
            let webhook =
                #"{"$_type":"CustomActionWebhookRegistration","endpoint":"http://127.0.0.1:9/hook","apiVersion":"V4","secret":"s3cret-sign"}"#
            let action = #"{"$_type":"CustomConversationActionData","type":"CONVERSATION","key":"escalate","triggerWebhook":\#(webhook)}"#
            let created = try await admin.webAPI("POST", "customactions/create", action)
            let id = try #require(created["id"] as? String)
            let query = #"{"$_type":"CustomActionQuery"}"#
            func firstWebhook(_ page: [String: Any]) -> [String: Any]? {
                ((page["items"] as? [[String: Any]])?.first { $0["id"] as? String == id })?["triggerWebhook"] as? [String: Any]
            }
            let asAdmin = try #require(firstWebhook(try await admin.webAPI("POST", "customactions/search", query)))
            #expect(asAdmin["secret"] as? String == "s3cret-sign")
            let agent = server.admin("agent", "agent").transport
            let asAgent = try #require(firstWebhook(try await agent.webAPI("POST", "customactions/search", query)))
            #expect(asAgent["secret"] == nil, "\(asAgent)")
            #expect(asAgent["endpoint"] as? String == "http://127.0.0.1:9/hook", "the rest of the webhook is shown")
            _ = try await agent.webAPI("GET", "customactions/\(id)/read", status: 403)
        }
    }
}
