import APNsSimulator
import ArgumentParser
import CollabTLS
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// `mock-collab apns-sim`: an APNs-compatible HTTP/2 endpoint with a generated TLS certificate.
struct APNsSimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns-sim",
        abstract: "Run an APNs-compatible HTTP/2 receiver that validates pushes like Apple's provider API and records them.",
        discussion: """
            Prints 'listening on https://HOST:PORT' when ready. The TLS certificate is generated at start; write it out with \
            --certificate-out to trust it. Provider tokens must be signed with one of the given keys. GET /_sim/pushes lists what \
            arrived; POST /_sim/unregister {"token": …} makes a token answer 410.
            """
    )

    @Option(help: "Address to bind.")
    var host: String = "127.0.0.1"

    @Option(help: "Port to bind; 0 picks a free port.")
    var port: Int = 0

    @Option(help: "Team id provider tokens must be issued by.")
    var teamId: String?

    @Option(help: "Key id of the provider-token key.")
    var keyId: String

    @Option(help: "PEM file with the provider key: the .p8 private key or its public key.")
    var keyFile: String

    @Option(name: .customLong("topic"), help: "Allowed bundle id (repeatable); any when absent.")
    var topics: [String] = []

    @Option(help: "Write the generated certificate (PEM) here.")
    var certificateOut: String?

    func run() async throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        let logger = Logger(label: "apns-sim")
        guard let pem = FileManager.default.contents(atPath: keyFile).flatMap({ String(data: $0, encoding: .utf8) }) else {
            throw ValidationError("cannot read \(keyFile)")
        }
        let publicPEM = try APNsSimulatorKeys.publicKeyPEM(from: pem)
        let simulator = try APNsSimulator(
            configuration: APNsSimulatorConfiguration(host: host, port: port, teamId: teamId, keys: [keyId: publicPEM], topics: Set(topics)), logger: logger
        )
        if let certificateOut {
            try simulator.certificate.certificatePEM.write(toFile: certificateOut, atomically: true, encoding: .utf8)
        }
        let group = ServiceGroup(configuration: .init(services: [simulator], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        let announce = Task {
            let port = await simulator.waitUntilListening()
            FileHandle.standardOutput.write(Data("listening on https://\(host):\(port)\n".utf8))
        }
        try await group.run()
        announce.cancel()
    }
}
