import CollabClient
import CollabCore
import CollabWire
import Testing

@Suite("Web API: accounts and API keys")
struct AccountsAndApiKeysTests {
    @Test("getCurrentAccount, read, search, create, update, delete")
    func accountLifecycle() async throws {
        try await InProcessServer.with { server in
            let root = server.admin("superadmin", "superadmin")
            let current = try await root.accounts.current()
            #expect(current.name == "demo")
            #expect(current.type == "Account")
            #expect(current.configuration == nil, "configuration only on expand")

            let created = try await root.accounts.create(WebAccount(name: "acme", configuration: ["com.unblu.x": "1"]))
            let id = try #require(created.id)
            #expect(created.version == 1)
            let read = try await root.accounts.read(id, expand: ["configuration"])
            #expect(read.configuration == ["com.unblu.x": "1"])

            let page = try await root.accounts.search(
                WebQuery(
                    type: "AccountQuery",
                    searchFilters: [WebSearchFilter(field: "NAME", operator: WebSearchOperator(type: "CONTAINS", value: .string("AC")))])
            )
            #expect(page.items?.map(\.name) == ["acme"])
            #expect(page.hasMoreItems == false)

            var update = read
            update.name = "acme-renamed"
            update.configuration = nil  // absent configuration is kept
            let updated = try await root.accounts.update(update, expand: ["configuration"])
            #expect(updated.version == 2)
            #expect(updated.name == "acme-renamed")
            #expect(updated.configuration == ["com.unblu.x": "1"])

            // The stale version is refused with 409 and changes nothing.
            var stale = read
            stale.name = "stale"
            await #expect(throws: CollabClientError.self) { try await root.accounts.update(stale) }
            do throws(CollabClientError) {
                _ = try await root.accounts.update(stale)
            } catch {
                #expect(error.code == .conflict)
            }
            #expect(try await root.accounts.read(id).name == "acme-renamed")

            try await root.accounts.delete(id)
            do throws(CollabClientError) {
                _ = try await root.accounts.read(id)
                Issue.record("deleted account is still readable")
            } catch {
                #expect(error.code == .notFound)
            }
        }
    }

    @Test("createAccountWithNewAdmin creates an admin who can log in after setPassword")
    func accountWithAdmin() async throws {
        try await InProcessServer.with { server in
            let root = server.admin("superadmin", "superadmin")
            let container = try await root.accounts.createWithNewAdmin(
                WebAccount(name: "newco"), admin: WebUser(username: "newco-admin", firstName: "New", lastName: "Admin")
            )
            let adminId = try #require(container.adminUser?.id)
            #expect(container.adminUser?.authorizationRole == "ADMIN")
            #expect(container.account?.id == container.adminUser?.accountId)
            // The new account's admin has no password yet; the super admin cannot reach into the
            // other account's users, so the password goes through the control path: seed.
            do throws(CollabClientError) {
                _ = try await root.users.setPassword(adminId, password: "x")
                Issue.record("super admin reached another account's user")
            } catch {
                #expect(error.code == .notFound)
            }
            try await server.control.seed(
                "accounts:\n  - name: newco\n    users:\n      - username: newco-admin\n        password: secret\n        role: ADMIN\n")
            let newAdmin = server.admin("newco-admin", "secret")
            #expect(try await newAdmin.accounts.current().name == "newco")
        }
    }

    @Test("API keys: create, read, getByKey, getDefault, readMultiple, search, update, delete")
    func apiKeyLifecycle() async throws {
        try await InProcessServer.with { server in
            let admin = server.admin("admin", "admin")
            let defaultKey = try await admin.apiKeys.getDefault()
            #expect(defaultKey.apiKey == "demo-api-key")

            let generated = try await admin.apiKeys.create(WebApiKey(name: "generated"))
            let generatedKey = try #require(generated.apiKey)
            #expect(generatedKey.count >= 32, "generated keys are long random strings")
            let chosen = try await admin.apiKeys.create(WebApiKey(name: "chosen", apiKey: "chosen-key", configuration: ["a": "b"]))
            let chosenId = try #require(chosen.id)

            #expect(try await admin.apiKeys.read(chosenId, expand: ["configuration"]).configuration == ["a": "b"])
            #expect(try await admin.apiKeys.getByKey("chosen-key").id == chosenId)
            let multiple = try await admin.apiKeys.readMultiple([chosenId, "missing", try #require(generated.id)])
            #expect(multiple.items?.map(\.name) == ["chosen", "generated"])
            #expect(multiple.type == "ApiKeyList")

            let sorted = try await admin.apiKeys.search(
                WebQuery(type: "ApiKeyQuery", orderBy: [WebOrderBy(field: "NAME", order: "DESCENDING")], limit: 2))
            #expect(sorted.items?.map(\.name) == ["generated", "Demo API key"], "names sort case-insensitively")
            #expect(sorted.hasMoreItems == true)
            #expect(sorted.nextOffset == 2)

            do throws(CollabClientError) {
                _ = try await admin.apiKeys.create(WebApiKey(name: "dup", apiKey: "chosen-key"))
                Issue.record("duplicate key accepted")
            } catch {
                #expect(error.code == .conflict)
            }

            var update = chosen
            update.description = "described"
            let updated = try await admin.apiKeys.update(update)
            #expect(updated.description == "described")
            #expect(updated.version == 2)

            try await admin.apiKeys.delete(chosenId)
            do throws(CollabClientError) {
                _ = try await admin.apiKeys.getByKey("chosen-key")
                Issue.record("deleted key still found")
            } catch {
                #expect(error.code == .notFound)
            }
        }
    }
}
