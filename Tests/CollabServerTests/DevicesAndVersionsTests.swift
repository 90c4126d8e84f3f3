import CollabClient
import CollabCore
import CollabServer
import CollabStore
import CollabWire
import Foundation
import Testing

/// A person's devices through the Web API, and the pairing of server and SDK versions.
@Suite("Devices and versions")
struct DevicesAndVersionsTests {
    @Test("personpresences answer the app's deviceInfo; a backend removes a person's devices through the Web API and they get no more pushes")
    func devices() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let scenario = try await PushScenario.make(server, device: "managed-phone", version: .encrypted)
            let personId = try #require(scenario.app.session?.person.id)
            let admin = server.admin("admin-d", "pw").transport
            let query =
                #"{"$_type":"PersonPresenceQuery","searchFilters":[{"$_type":"PersonIdPersonPresenceSearchFilter","field":"PERSON_ID","#
                    + #""operator":{"$_type":"EqualsIdOperator","type":"EQUALS","value":"\#(personId)"}}]}"#
            let found = try await admin.raw("POST", "/app/rest/v4/personpresences/search", body: Data(query.utf8))
            #expect(
                VendorSchemaCheck.problems(found.body, schema: "PersonPresenceResult").isEmpty,
                "\(VendorSchemaCheck.problems(found.body, schema: "PersonPresenceResult"))")
            let items = try #require((try JSONSerialization.jsonObject(with: found.body) as? [String: Any])?["items"] as? [[String: Any]])
            let presence = try #require(items.first)
            let deviceInfo = try #require(presence["deviceInfo"] as? [String: Any])
            #expect(deviceInfo["identifier"] as? String == "managed-phone")
            #expect(deviceInfo["identifierSource"] as? String == "DEVICE_ID")
            #expect(deviceInfo["type"] as? String == "MOBILE")
            #expect(deviceInfo["pushToken"] as? String == apnsToken)
            #expect(deviceInfo["pushKitToken"] as? String == voipToken)
            #expect(deviceInfo["mobilePushNotificationVersion"] as? Int == 2)
            #expect(deviceInfo["ownerPersonId"] as? String == personId)
            let clientId = try #require(presence["id"] as? String)
            let read = try await admin.raw("GET", "/app/rest/v4/personpresences/\(clientId)/read")
            #expect(read.status == 200)
            #expect(VendorSchemaCheck.problems(read.body, schema: "PersonPresenceData").isEmpty)
            #expect(try await admin.raw("GET", "/app/rest/v4/personpresences/unknown/read").status == 404)
            // Removing devices is an admin's: an agent (here another account's) is refused.
            let outsider = server.admin("agent-x", "pw").transport
            #expect(try await outsider.raw("POST", "/app/rest/v4/persons/\(personId)/removeDevices").status == 403)

            // Removing the device: its tokens go, no more pushes reach it.
            let removed = try await admin.raw(
                "POST", "/app/rest/v4/persons/\(personId)/removeDevices", body: Data(#"{"deviceIdentifiers":["managed-phone"]}"#.utf8))
            #expect(removed.status == 204)
            let after = try await admin.raw("GET", "/app/rest/v4/personpresences/\(clientId)/read")
            let info = try #require((try JSONSerialization.jsonObject(with: after.body) as? [String: Any])?["deviceInfo"] as? [String: Any])
            #expect(info["pushToken"] == nil && info["pushKitToken"] == nil)
            let devices: [DeviceView] = try await server.control.transport.send("GET", "/_mock/v1/devices", query: [("personId", personId)])
            #expect(devices.isEmpty)
            _ = try await scenario.agent.send("anyone there?", in: scenario.conversationId)
            try await server.settlePushes()
            #expect(try await server.pushes([("personId", personId)]).filter { $0.kind == .newMessage }.isEmpty)
            #expect(try await admin.raw("POST", "/app/rest/v4/persons/unknown/removeDevices").status == 404)
        }
    }

    @Test(
        "global/productVersion answers the configured vendor version; an SDK major it does not pair with is the fatal UNSUPPORTED_SERVER_VERSION"
    )
    func versionPairing() async throws {
        for (product, refused, accepted) in [("7.49.2", "5.0.1", "4.2.0"), ("6.30.1", "4.0.0", "3.9.1")] {
            try await InProcessServer.with(seed: queueSeed, configure: { $0.productVersion = ProductVersion(product) }) { server in
                let version = try await server.admin("agent-a", "pw").transport.raw("GET", "/app/rest/v4/global/productVersion")
                #expect((try JSONSerialization.jsonObject(with: version.body) as? [String: Any])?["productVersion"] as? String == product)

                let old = VisitorClient(configuration: ClientConfiguration(
                    baseURL: server.baseURL, apiKey: "desk-key", deviceId: "sdk-\(refused)", device: .init(os: "iOS", sdkVersion: refused)
                ))
                let events = ClientEventCollector(old.clientEvents)
                do {
                    try await old.start()
                    Issue.record("\(product) started an app with SDK \(refused)")
                } catch let error as CollabClientError {
                    #expect(error.status == 400 && error.type == "UNSUPPORTED_SERVER_VERSION")
                }
                try await events.wait(for: "the fatal error") {
                    if case .error(let error) = $0 { return error.type == .unsupportedServerVersion && error.isFatal }
                    return false
                }
                let agentApp = AgentClient(configuration: ClientConfiguration(
                    baseURL: server.baseURL, apiKey: "desk-key", deviceId: "agent-\(refused)", device: .init(os: "iOS", sdkVersion: refused)
                ))
                await #expect(throws: CollabClientError.self) { try await agentApp.start(username: "agent-a", password: "pw", liveEvents: false) }
                let current = VisitorClient(configuration: ClientConfiguration(
                    baseURL: server.baseURL, apiKey: "desk-key", deviceId: "sdk-\(accepted)", device: .init(os: "iOS", sdkVersion: accepted)
                ))
                try await current.start(liveEvents: false)
            }
        }
    }
}
