import CollabClient
import CollabCore
import CollabWire
import Testing

@Suite("Web API: named areas, users and persons")
struct NamedAreasUsersPersonsTests {
    @Test("named areas: create, read, readMultiple, search by siteId, update, delete")
    func namedAreaLifecycle() async throws {
        try await InProcessServer.with { server in
            let admin = server.admin("admin", "admin")
            let area = try await admin.namedAreas.create(WebNamedArea(name: "Support", siteId: "support", configuration: ["k": "v"]))
            let id = try #require(area.id)
            #expect(area.areaType == "META_TAG")
            #expect(try await admin.namedAreas.read(id, expand: ["configuration"]).configuration == ["k": "v"])

            // The vendor's SITE_ID filter takes an IdOperator (`$_type` EqualsIdOperator), as web-api.md's first example sends.
            var equalsId = WebSearchOperator(type: "EQUALS", value: .string("support"))
            equalsId.discriminator = "EqualsIdOperator"
            let found = try await admin.namedAreas.search(
                WebQuery(type: "NamedAreaQuery", searchFilters: [WebSearchFilter(field: "SITE_ID", operator: equalsId)])
            )
            #expect(found.items?.map(\.id) == [id])
            let both = try await admin.namedAreas.search(
                WebQuery(type: "NamedAreaQuery", searchFilters: [
                    WebSearchFilter(field: "SITE_ID", operator: WebSearchOperator(type: "IN", values: [.string("support"), .string("demo-area")]))
                ], orderBy: [WebOrderBy(field: "SITE_ID")])
            )
            #expect(both.items?.map(\.siteId) == ["demo-area", "support"])
            #expect(try await admin.namedAreas.readMultiple([id]).items?.count == 1)

            do throws(CollabClientError) {
                _ = try await admin.namedAreas.create(WebNamedArea(name: "Again", siteId: "support"))
                Issue.record("duplicate siteId accepted")
            } catch {
                #expect(error.code == .conflict)
            }

            var update = area
            update.name = "Support desk"
            update.areaType = "DOMAIN"
            let updated = try await admin.namedAreas.update(update)
            #expect(updated.name == "Support desk")
            #expect(updated.areaType == "DOMAIN")

            // An agent may read named areas but not change them.
            let agent = server.admin("agent", "agent")
            #expect(try await agent.namedAreas.read(id).name == "Support desk")
            do throws(CollabClientError) {
                try await agent.namedAreas.delete(id)
                Issue.record("agent deleted a named area")
            } catch {
                #expect(error.code == .forbidden)
            }
            try await admin.namedAreas.delete(id)
            #expect(try await admin.namedAreas.search().items?.map(\.siteId) == ["demo-area"])
        }
    }

    @Test("users: create, createWithPassword, read, getByUsername, search, update, setPassword, delete")
    func userLifecycle() async throws {
        try await InProcessServer.with { server in
            let admin = server.admin("admin", "admin")
            let plain = try await admin.users.create(WebUser(username: "no-password", authorizationRole: "REGISTERED_USER"))
            #expect(plain.authorizationRole == "REGISTERED_USER")
            let created = try await admin.users.create(
                WebUser(username: "jane", authorizationRole: "SUPERVISOR", firstName: "Jane", lastName: "Doe"), password: "s3cret")
            let janeId = try #require(created.id)
            #expect(try await admin.users.read(janeId).username == "jane")
            #expect(try await admin.users.getByUsername("jane").id == janeId)

            // Jane can log in with her password, and her person mirrors her.
            let jane = server.admin("jane", "s3cret")
            let me = try await jane.authenticator.currentPerson()
            #expect(me.personType == "AGENT")
            #expect(me.personSource == "USER_DB")
            #expect(me.sourceId == janeId)
            #expect(me.displayName == "Jane Doe")

            let search = try await admin.users.search(
                WebQuery(
                    type: "UserQuery",
                    searchFilters: [WebSearchFilter(field: "USERNAME", operator: WebSearchOperator(type: "EQUALS", value: .string("jane")))])
            )
            #expect(search.items?.map(\.id) == [janeId])

            // Jane updates her own name but cannot raise her role.
            var mine = try await jane.users.read(janeId)
            mine.firstName = "Janet"
            let renamed = try await jane.users.update(mine)
            #expect(renamed.firstName == "Janet")
            var promoted = renamed
            promoted.authorizationRole = "ADMIN"
            do throws(CollabClientError) {
                _ = try await jane.users.update(promoted)
                Issue.record("user raised their own role")
            } catch {
                #expect(error.code == .forbidden)
            }

            // setPassword: the old password stops working, the new one works.
            _ = try await jane.users.setPassword(janeId, password: "n3w")
            do throws(CollabClientError) {
                _ = try await server.admin("jane", "s3cret").accounts.current()
                Issue.record("old password still accepted")
            } catch {
                #expect(error.code == .authorization)
            }
            #expect(try await server.admin("jane", "n3w").accounts.current().name == "demo")

            // Admins cannot create super admins.
            do throws(CollabClientError) {
                _ = try await admin.users.create(WebUser(username: "root2", authorizationRole: "SUPER_ADMIN"), password: "x")
                Issue.record("admin created a super admin")
            } catch {
                #expect(error.code == .forbidden)
            }
            do throws(CollabClientError) {
                _ = try await admin.users.create(WebUser(username: "jane", authorizationRole: "REGISTERED_USER"))
                Issue.record("duplicate username accepted")
            } catch {
                #expect(error.code == .conflict)
            }

            try await admin.users.delete(janeId)
            do throws(CollabClientError) {
                _ = try await admin.users.read(janeId)
                Issue.record("deleted user still readable")
            } catch {
                #expect(error.code == .notFound)
            }
            do throws(CollabClientError) {
                _ = try await server.admin("jane", "n3w").accounts.current()
                Issue.record("deleted user can still log in")
            } catch {
                #expect(error.code == .authorization)
            }
        }
    }

    @Test("persons: read, getBySource, createOrUpdateVirtual, search, searchAgents, searchVisitors")
    func persons() async throws {
        try await InProcessServer.with { server in
            let admin = server.admin("admin", "admin")
            let visitor = try await admin.persons.createOrUpdateVirtual(
                WebPerson(sourceId: "crm-42", personType: "VISITOR", firstName: "Vic", email: "vic@example.com"))
            let visitorId = try #require(visitor.id)
            #expect(visitor.personSource == "VIRTUAL")
            // Same source id updates rather than duplicates.
            let again = try await admin.persons.createOrUpdateVirtual(WebPerson(sourceId: "crm-42", lastName: "Tor"))
            #expect(again.id == visitorId)
            #expect(again.firstName == "Vic")
            #expect(again.lastName == "Tor")

            #expect(try await admin.persons.read(visitorId).email == "vic@example.com")
            #expect(try await admin.persons.getBySource("VIRTUAL", sourceId: "crm-42").id == visitorId)
            let agentUser = try await admin.users.getByUsername("agent")
            #expect(try await admin.persons.getBySource("USER_DB", sourceId: try #require(agentUser.id)).username == "agent")

            let agents = try await admin.persons.searchAgents()
            #expect(Set(agents.items?.compactMap(\.username) ?? []) == ["superadmin", "admin", "agent"])
            let visitors = try await admin.persons.searchVisitors()
            #expect(visitors.items?.map(\.id) == [visitorId])
            let all = try await admin.persons.search(
                WebQuery(
                    type: "PersonQuery",
                    searchFilters: [WebSearchFilter(field: "PERSON_TYPE", operator: WebSearchOperator(type: "EQUALS", value: .string("VISITOR")))])
            )
            #expect(all.items?.count == 1)

            // persons/search is an admin operation; agents use the typed searches.
            let agent = server.admin("agent", "agent")
            #expect(try await agent.persons.searchVisitors().items?.count == 1)
            do throws(CollabClientError) {
                _ = try await agent.persons.search()
                Issue.record("agent used persons/search")
            } catch {
                #expect(error.code == .forbidden)
            }
        }
    }

    @Test("search pages with offset, limit, hasMoreItems and nextOffset")
    func paging() async throws {
        try await InProcessServer.with { server in
            let admin = server.admin("admin", "admin")
            for index in 0..<7 {
                _ = try await admin.namedAreas.create(WebNamedArea(name: "Area \(index)", siteId: "area-\(index)"))
            }
            var seen: [String] = []
            var offset = 0
            while true {
                let page = try await admin.namedAreas.search(
                    WebQuery(type: "NamedAreaQuery", orderBy: [WebOrderBy(field: "SITE_ID")], offset: offset, limit: 3))
                seen += page.items?.compactMap(\.siteId) ?? []
                guard page.hasMoreItems == true, let next = page.nextOffset else { break }
                offset = next
            }
            #expect(seen == ["area-0", "area-1", "area-2", "area-3", "area-4", "area-5", "area-6", "demo-area"])
        }
    }
}
