import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

@testable import CollabServer

/// Regression tests for what an adversarial probe found about sessions and identities: privileges that
/// outlived a demotion, anonymous visitors impersonated by device id, live sockets that outlived logout.
@Suite("Session security")
struct SessionSecurityTests {
    @Test("a demoted admin loses admin rights at once: open sessions (bearer and cookie) end, basic auth gets the new role")
    func demotionEndsPrivileges() async throws {
        try await TestServer.with(seed: twoAccountSeed) { server in
            let boss = server.admin("alpha-admin", "pw-a")
            let victim = try await boss.users.create(WebUser(username: "temp-admin", authorizationRole: "ADMIN"), password: "pw-t")
            // A cookie session and a bearer session opened while ADMIN.
            let cookie = server.anonymous
            try await cookie.authenticator.login(username: "temp-admin", password: "pw-t")
            let bearerToken = try #require(cookie.transport.sessionToken)
            let bearer = AdminClient(baseURL: server.baseURL, credentials: .bearer(bearerToken))
            #expect(try await cookie.users.create(WebUser(username: "made-by-admin", authorizationRole: "ADMIN")).username == "made-by-admin")

            var demoted = try await boss.users.read(victim.id!)
            demoted.authorizationRole = "REGISTERED_USER"
            _ = try await boss.users.update(demoted)

            for (name, client) in [("cookie", cookie), ("bearer", bearer)] {
                do throws(CollabClientError) {
                    _ = try await client.users.create(WebUser(username: "after-demotion-\(name)", authorizationRole: "ADMIN"))
                    Issue.record("the \(name) session kept admin rights after the demotion")
                } catch {
                    #expect(error.status == 401, "\(name): the session ended with the role change")
                }
            }
            let basic = server.admin("temp-admin", "pw-t")
            do throws(CollabClientError) {
                _ = try await basic.users.create(WebUser(username: "after-demotion-basic", authorizationRole: "REGISTERED_USER"))
                Issue.record("basic auth kept admin rights after the demotion")
            } catch {
                #expect(error.status == 403)
            }
            #expect(try await basic.accounts.current().name == "alpha", "the user still works with the role it has now")
        }
    }

    @Test("an anonymous device id cannot be taken over: later starts need the secret the first start issued")
    func deviceImpersonation() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let ownerStorage = MemoryPreferencesStorage()
            let owner = VisitorClient(
                configuration: ClientConfiguration(baseURL: server.baseURL, apiKey: "desk-key", deviceId: "phone-1", preferences: ownerStorage))
            let first = try await owner.start(liveEvents: false)
            let secret = try #require(first.deviceSecret, "the first start issues a device secret")
            let conversation = try await owner.startConversation(topic: "private")

            // Another installation that only knows the device id.
            let attacker = VisitorClient(configuration: ClientConfiguration(
                baseURL: server.baseURL, apiKey: "desk-key", deviceId: "phone-1", preferences: MemoryPreferencesStorage()
            ))
            do throws(CollabClientError) {
                _ = try await attacker.start(liveEvents: false)
                Issue.record("a start without the device secret became the visitor")
            } catch {
                #expect(error.code == .authorization)
            }

            // The owner's next start presents the stored secret and is the same person, with its conversation.
            let again = VisitorClient(
                configuration: ClientConfiguration(baseURL: server.baseURL, apiKey: "desk-key", deviceId: "phone-1", preferences: ownerStorage))
            let second = try await again.start(liveEvents: false)
            #expect(second.person.id == first.person.id)
            #expect(second.deviceSecret == nil, "the secret is issued once")
            #expect(try await again.conversations().map(\.id).contains(conversation.id))
            #expect(try ownerStorage.string(forKey: "mockcollab.deviceSecret.\(server.baseURL).desk-key.phone-1") == secret)

            // An access token cannot name an anonymous device's person either.
            let token = try await server.control.issueToken(account: "desk", TestTokenRequest(subject: "device:phone-1"))
            let forged = visitor(server, device: "forger", accessToken: token.token)
            do throws(CollabClientError) {
                _ = try await forged.start(liveEvents: false)
                Issue.record("a token with a device: subject became the anonymous visitor")
            } catch {
                #expect(error.code == .authorization)
            }
            await #expect(throws: CollabClientError.self) {
                try await server.anonymous.authenticator.loginWithSecureToken(token.token, apiKey: "desk-key")
            }
        }
    }

    @Test("live agent sockets end with logout, with a role change and with the user's deletion")
    func socketsEndWithTheirSession() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let hub = server.server.environment.events
            let admin = server.admin("admin-d", "pw")

            // Logout.
            let agentA = try await agent(server, "agent-a")
            let baseline = hub.connectionCount
            let streamA = try await agentA.connectEvents()
            try await waitFor { hub.connectionCount == baseline + 1 }
            try await agentA.logout()
            try await waitFor { hub.connectionCount == baseline }
            streamA.close()

            // Deletion.
            let doomed = try await admin.users.create(WebUser(username: "doomed", authorizationRole: "REGISTERED_USER"), password: "pw")
            let agentD = try await agent(server, "doomed")
            let streamD = try await agentD.connectEvents()
            try await waitFor { hub.connectionCount == baseline + 1 }
            try await admin.users.delete(doomed.id!)
            try await waitFor { hub.connectionCount == baseline }
            streamD.close()

            // A role change.
            let agentB = try await agent(server, "agent-b")
            let streamB = try await agentB.connectEvents()
            try await waitFor { hub.connectionCount == baseline + 1 }
            var user = try await admin.users.getByUsername("agent-b")
            user.authorizationRole = "SUPERVISOR"
            _ = try await admin.users.update(user)
            try await waitFor { hub.connectionCount == baseline }
            streamB.close()
            // The reconnect the client attempts is refused: its token is gone.
            do throws(CollabClientError) {
                _ = try await agentB.queue()
                Issue.record("the ended session still answers")
            } catch {
                #expect(error.status == 401)
            }
        }
    }

    /// Waits for a condition the server reaches by itself (a barrier), failing after a generous bound.
    func waitFor(_ condition: () -> Bool, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("the condition was not reached in \(timeout)")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
