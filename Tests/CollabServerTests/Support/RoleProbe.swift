import CollabCore
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

extension RoleRulesTests.Operation {
    /// An operation of the vendor's spec called with unknown ids (`?name=unknown` for `getByName`), an
    /// empty object as a POST's body (`[]` when `takesList`), and the spec's role.
    init(vendor operation: (tag: String, method: String, path: String, role: String), takesList: Bool) {
        let path = "/app/rest/v4" + operation.path.replacingOccurrences(of: #"\{[^}]+\}"#, with: "unknown", options: .regularExpression)
        self.init(
            method: operation.method, path: path + (operation.path.hasSuffix("getByName") ? "?name=unknown" : ""),
            body: operation.method == "POST" ? (takesList ? "[]" : "{}") : nil, required: AuthorizationRole(rawValue: operation.role) ?? .superAdmin
        )
    }
}

extension RoleRulesTests {
    /// Calls `operation` as every caller and anonymously (router mode): a caller at or above its role
    /// gets the operation's own answer (never a refusal, never a 5xx), the others 403, anonymous 401
    /// where a role is needed; none of it changes the state.
    static func expectRoles(_ operation: Operation, on server: InProcessServer) async throws {
        let before = try server.stats()
        let method = try #require(HTTPRequest.Method(operation.method))
        for caller in callers {
            let password = caller.username == "root" ? "root" : "pw-a"
            let status = try await server.call(
                method, operation.path, authorization: InProcessServer.basic(caller.username, password), body: operation.body
            )
            .status
            if caller.role >= operation.required {
                #expect(status != .forbidden && status != .unauthorized && status.code < 500, "\(caller.username) \(operation) → \(status)")
            } else {
                #expect(status == .forbidden, "\(caller.username) (\(caller.role)) must be refused \(operation), got \(status)")
            }
        }
        if operation.required > .anonymousUser {
            #expect(try await server.call(method, operation.path, body: operation.body).status == .unauthorized, "anonymous \(operation)")
        }
        #expect(try server.stats() == before, "probing \(operation) changed state")
    }
}
