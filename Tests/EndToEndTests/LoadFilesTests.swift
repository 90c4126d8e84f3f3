import CollabCore
import CollabLoad
import CollabServer
import Foundation
import Testing

@Suite("Load tool: files scenario")
struct LoadFilesTests {
    @Test("each files visitor uploads one picture per conversation; agents reply to it; the counts agree with the server")
    func filesScenario() async throws {
        try await TestServer.with { server in
            var configuration = LoadToolTests.configuration(server, scenario: .files, visitors: 4)
            configuration.fileBytes = 30_000
            let report = try await LoadRunner(configuration: configuration).run()
            #expect(report.stoppedBy == "completed")
            #expect(report.errors.isEmpty, "\(report.errors)")
            #expect(report.operation(.fileUpload)?.count == 4)
            #expect(report.counter(.messagesSent) == 4 * 3, "the upload is the first of three messages")
            #expect(report.counter(.repliesSent) == report.counter(.messagesSent))
            let comparison = try #require(report.server, "\(report.serverUnavailable ?? "")")
            for check in comparison.checks {
                #expect(check.agrees, "\(check.name): server \(check.server), load \(check.load)")
            }
            #expect(server.server.fileBytesStored == 4 * 30_000)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try await validateAgainstSchema(encoder.encode(report))
        }
    }
}
