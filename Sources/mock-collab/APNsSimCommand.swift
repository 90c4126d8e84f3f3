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
            --certificate-out to trust it. Senders authenticate with provider tokens signed with the given key, or with a \
            certificate the simulator issued (--issue-certificate BUNDLE --issued-certificate-out FILE.p12), which limits \
            the topics they may push to as Apple does. GET /_sim/pushes lists what arrived; POST /_sim/unregister \
            {"token": …} makes a token answer 410.
            """
    )

    @Option(help: "Address to bind.")
    var host: String = "127.0.0.1"

    @Option(help: "Port to bind; 0 picks a free port.")
    var port: Int = 0

    @Option(help: "Team id provider tokens must be issued by.")
    var teamId: String?

    @Option(help: "Key id of the provider-token key (with --key-file; without both, only certificates authenticate).")
    var keyId: String?

    @Option(help: "PEM file with the provider key: the .p8 private key or its public key.")
    var keyFile: String?

    @Option(help: "Issue an APNs certificate for this bundle id that the simulator accepts (write it with --issued-certificate-out).")
    var issueCertificate: String?

    @Option(help: "The issued certificate's kind: voip (VoIP Services: BUNDLE.voip only) or push (Apple Push Services).")
    var certificateKind: String = "voip"

    @Option(help: "Write the issued certificate here as a .p12 (PEM files beside it, .pem and .key.pem).")
    var issuedCertificateOut: String?

    @Option(help: "Password of the issued .p12.")
    var issuedCertificatePassword: String = "mock-collab"

    @Option(name: .customLong("topic"), help: "Allowed bundle id (repeatable); any when absent.")
    var topics: [String] = []

    @Option(help: "Write the generated certificate (PEM) here.")
    var certificateOut: String?

    func validate() throws {
        guard (keyId == nil) == (keyFile == nil) else { throw ValidationError("--key-id and --key-file go together") }
        guard keyId != nil || issueCertificate != nil else {
            throw ValidationError("give a provider key (--key-id, --key-file), a certificate to issue (--issue-certificate), or both")
        }
        guard certificateKind == "voip" || certificateKind == "push" else { throw ValidationError("--certificate-kind is voip or push") }
        guard (issueCertificate == nil) == (issuedCertificateOut == nil) else {
            throw ValidationError("--issue-certificate and --issued-certificate-out go together")
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        let logger = Logger(label: "apns-sim")
        var keys: [String: String] = [:]
        if let keyId, let keyFile {
            guard let pem = FileManager.default.contents(atPath: keyFile).flatMap({ String(data: $0, encoding: .utf8) }) else {
                throw ValidationError("cannot read \(keyFile)")
            }
            keys[keyId] = try APNsSimulatorKeys.publicKeyPEM(from: pem)
        }
        let simulator = try APNsSimulator(
            configuration: APNsSimulatorConfiguration(host: host, port: port, teamId: teamId, keys: keys, topics: Set(topics)), logger: logger
        )
        if let certificateOut {
            try simulator.certificate.certificatePEM.write(toFile: certificateOut, atomically: true, encoding: .utf8)
        }
        if let bundleId = issueCertificate, let output = issuedCertificateOut {
            let kind: APNsCertificateKind = certificateKind == "push" ? .pushServices : .voipServices
            try writeCertificate(
                try simulator.issueCertificate(bundleId: bundleId, kind: kind, teamId: teamId), authority: simulator.certificateAuthority, to: output)
        }
        let group = ServiceGroup(configuration: .init(services: [simulator], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        let announce = Task {
            let port = await simulator.waitUntilListening()
            FileHandle.standardOutput.write(Data("listening on https://\(host):\(port)\n".utf8))
        }
        try await group.run()
        announce.cancel()
    }

    /// Writes an issued certificate as a `.p12` (what push settings take, in base64), with its PEM files beside it.
    private func writeCertificate(_ identity: TLSIdentity, authority: TLSIdentity, to output: String) throws {
        let base = output.hasSuffix(".p12") ? String(output.dropLast(4)) : output
        let certificatePath = base + ".pem"
        let keyPath = base + ".key.pem"
        let authorityPath = base + ".authority.pem"
        try identity.certificatePEM.write(toFile: certificatePath, atomically: true, encoding: .utf8)
        try identity.privateKeyPEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
        try authority.certificatePEM.write(toFile: authorityPath, atomically: true, encoding: .utf8)
        try PKCS12Exporter.export(
            certificatePath: certificatePath, keyPath: keyPath, authorityPath: authorityPath, password: issuedCertificatePassword,
            friendlyName: identity.subject, outputPath: output
        )
    }
}
