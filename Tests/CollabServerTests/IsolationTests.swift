import CollabClient
import CollabCore
import CollabWire
import Testing

/// One account's credentials never read, list or change another account's data: another account's id
/// answers 404, and searches never include it.
@Suite("Tenant isolation")
struct IsolationTests {
    @Test("beta's admin cannot see or touch any of alpha's entities")
    func crossAccount() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let alpha = server.admin("alpha-admin", "pw-a")
            let beta = server.admin("beta-admin", "pw-b")
            let alphaAccount = try await alpha.accounts.current()
            let alphaKey = try await alpha.apiKeys.getDefault()
            let alphaArea = try #require(try await alpha.namedAreas.search().items?.first)
            let alphaUser = try await alpha.users.getByUsername("alpha-agent")
            let alphaVisitor = try await alpha.persons.getBySource("VIRTUAL", sourceId: "alpha-visitor")
            let alphaBefore = try await server.entityStats(account: "alpha")

            func expectNotFound(_ what: String, _ call: () async throws -> Void) async {
                do {
                    try await call()
                    Issue.record("beta reached alpha's \(what)")
                } catch {
                    #expect((error as? CollabClientError)?.code == .notFound, "\(what): expected 404, got \(error)")
                }
            }

            // Reads.
            await expectNotFound("api key") { _ = try await beta.apiKeys.read(alphaKey.id!) }
            await expectNotFound("api key by key") { _ = try await beta.apiKeys.getByKey("alpha-key") }
            await expectNotFound("named area") { _ = try await beta.namedAreas.read(alphaArea.id!) }
            await expectNotFound("user") { _ = try await beta.users.read(alphaUser.id!) }
            await expectNotFound("user by name") { _ = try await beta.users.getByUsername("alpha-agent") }
            await expectNotFound("person") { _ = try await beta.persons.read(alphaVisitor.id!) }
            await expectNotFound("person by source") { _ = try await beta.persons.getBySource("VIRTUAL", sourceId: "alpha-visitor") }
            await expectNotFound("user person by source") { _ = try await beta.persons.getBySource("USER_DB", sourceId: alphaUser.id!) }

            // Lists and searches.
            #expect(try await beta.apiKeys.readMultiple([alphaKey.id!]).items?.isEmpty == true)
            #expect(try await beta.namedAreas.readMultiple([alphaArea.id!]).items?.isEmpty == true)
            #expect(try await beta.apiKeys.search().items?.map(\.apiKey) == ["beta-key"])
            #expect(try await beta.namedAreas.search().items?.map(\.siteId) == ["beta-area"])
            #expect(Set(try await beta.users.search().items?.compactMap(\.username) ?? []) == ["beta-admin", "beta-agent"])
            #expect(try await beta.persons.searchVisitors().items?.map(\.sourceId) == ["beta-visitor"])
            #expect(try await beta.persons.search().items?.contains { $0.accountId == alphaAccount.id } == false)

            // Changes.
            var key = alphaKey
            key.name = "stolen"
            await expectNotFound("api key update") { _ = try await beta.apiKeys.update(key) }
            await expectNotFound("api key delete") { try await beta.apiKeys.delete(alphaKey.id!) }
            var area = alphaArea
            area.name = "stolen"
            await expectNotFound("named area update") { _ = try await beta.namedAreas.update(area) }
            await expectNotFound("named area delete") { try await beta.namedAreas.delete(alphaArea.id!) }
            var user = alphaUser
            user.firstName = "stolen"
            await expectNotFound("user update") { _ = try await beta.users.update(user) }
            await expectNotFound("user password") { _ = try await beta.users.setPassword(alphaUser.id!, password: "owned") }
            await expectNotFound("user delete") { try await beta.users.delete(alphaUser.id!) }
            var account = alphaAccount
            account.name = "stolen"
            await expectNotFound("account update") { _ = try await beta.accounts.update(account) }
            var planted = WebApiKey(name: "planted")
            planted.accountId = alphaAccount.id
            await expectNotFound("create in another account") { _ = try await beta.apiKeys.create(planted) }
            var plantedPerson = WebPerson(sourceId: "alpha-visitor", firstName: "Mallory")
            plantedPerson.accountId = alphaAccount.id
            await expectNotFound("person in another account") { _ = try await beta.persons.createOrUpdateVirtual(plantedPerson) }

            // The same source id in beta is beta's own person, not alpha's.
            let betaPerson = try await beta.persons.createOrUpdateVirtual(WebPerson(sourceId: "alpha-visitor", firstName: "Other"))
            #expect(betaPerson.id != alphaVisitor.id)
            try await beta.persons.read(betaPerson.id!).accountId.map { #expect($0 != alphaAccount.id) }

            #expect(try await server.entityStats(account: "alpha") == alphaBefore, "alpha's data changed")
            #expect(try await alpha.persons.read(alphaVisitor.id!).firstName == "Alpha")
            #expect(try await alpha.users.read(alphaUser.id!).firstName == nil)
        }
    }

    @Test("a session cookie of one account gives no access to another")
    func sessionIsolation() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let alpha = server.admin("alpha-admin", "pw-a")
            let alphaKeyId = try #require(try await alpha.apiKeys.getDefault().id)
            let beta = server.anonymous
            try await beta.authenticator.login(username: "beta-admin", password: "pw-b")
            #expect(try await beta.accounts.current().name == "beta")
            do throws(CollabClientError) {
                _ = try await beta.apiKeys.read(alphaKeyId)
                Issue.record("beta session read alpha's key")
            } catch {
                #expect(error.code == .notFound)
            }
        }
    }
}
