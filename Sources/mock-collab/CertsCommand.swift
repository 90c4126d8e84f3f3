import ArgumentParser
import CollabTLS
import Foundation

/// `mock-collab certs`: the development CA, the server certificate's pins, client certificates and
/// server-certificate rotation — what a device or a test needs to trust, pin and authenticate.
struct CertsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certs",
        abstract: "The development CA, pins of the server certificate, client certificates (.p12) and rotation.",
        subcommands: [Show.self, Client.self, Rotate.self],
        defaultSubcommand: Show.self
    )

    /// Options every `certs` subcommand shares.
    struct Location: ParsableArguments {
        @Option(help: "'sqlite:PATH' or 'memory', as given to serve: the CA lives next to the SQLite file (MOCK_COLLAB_STORAGE).")
        var storage: String = EnvironmentDefaults.string("MOCK_COLLAB_STORAGE") ?? "sqlite:./.mock-collab/state.sqlite"

        @OptionGroup var tls: TLSLocationOptions

        @Flag(help: "Print JSON instead of text.")
        var json = false

        var directory: TLSDirectory { TLSDirectory(dataDirectory: tls.dataDirectory(storage: storage)) }
    }

    /// What `certs` prints.
    struct Summary: Codable {
        var authorityPEM: String
        var authorityDER: String
        var authoritySubject: String
        var serverCertificate: String?
        var serverKey: String?
        var serverSubject: String
        var serverNames: [String]
        var notValidAfter: String
        /// SHA-256 of the server certificate (DER), base64.
        var certificateSHA256: String
        /// SHA-256 of the server certificate's public key (SPKI DER), base64.
        var publicKeySHA256: String
        var issued: Bool
    }

    static func summary(directory: TLSDirectory, identity: TLSIdentity, issued: Bool, certificateFile: String?) throws -> Summary {
        let authority = try directory.authority()
        let pins = try identity.pins
        let names = ServerNames.covered(by: identity.certificate)
        let written = (names?.dnsNames ?? []) + (names?.ipAddresses ?? []).map(Self.format(ip:))
        return Summary(
            authorityPEM: absolute(directory.authorityCertificatePath), authorityDER: absolute(directory.authorityDERPath),
            authoritySubject: authority.subject,
            serverCertificate: absolute(certificateFile ?? directory.serverCertificatePath),
            serverKey: certificateFile == nil ? absolute(directory.serverKeyPath) : nil,
            serverSubject: identity.subject, serverNames: written,
            notValidAfter: ISO8601DateFormatter().string(from: identity.notValidAfter),
            certificateSHA256: pins.certificateSHA256, publicKeySHA256: pins.publicKeySHA256, issued: issued
        )
    }

    static func print(_ summary: Summary, json: Bool, title: String) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Swift.print(String(decoding: try encoder.encode(summary), as: UTF8.self))
            return
        }
        Swift.print("""
            development CA: \(summary.authoritySubject)
              PEM (simulator, curl, browsers): \(summary.authorityPEM)
              DER (device profiles, Android):  \(summary.authorityDER)
            \(title): \(summary.serverSubject)\(summary.issued ? " (just issued)" : "")
              file:  \(summary.serverCertificate ?? "-")
              names: \(summary.serverNames.joined(separator: ", "))
              valid until: \(summary.notValidAfter)
            pins (SHA-256, base64):
              certificate:        \(summary.certificateSHA256)
              public key (SPKI):  \(summary.publicKeySHA256)
            """)
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
            .replacingOccurrences(of: "/./", with: "/")
    }

    static func format(ip bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        var groups: [String] = []
        for index in stride(from: 0, to: bytes.count, by: 2) {
            groups.append(String(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]), radix: 16))
        }
        // RFC 5952: the longest run of two or more zero groups becomes "::".
        var best = (start: -1, length: 0)
        var index = 0
        while index < groups.count {
            var end = index
            while end < groups.count, groups[end] == "0" { end += 1 }
            if end - index > best.length { best = (index, end - index) }
            index = end == index ? index + 1 : end
        }
        guard best.length >= 2 else { return groups.joined(separator: ":") }
        let head = groups[..<best.start].joined(separator: ":")
        let tail = groups[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }

    /// `certs` / `certs show`: the CA's files and the server certificate's pins (both made if absent).
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: """
                Print the CA's files and the server certificate's SHA-256 pins (makes the CA and certificate if absent; with --tls-names, \
                a new certificate when the current one does not cover them).
                """
        )

        @OptionGroup var location: Location

        @Option(help: "Pins of this certificate (PEM) instead, e.g. your --tls-cert.")
        var cert: String?

        @Flag(help: "Also print the CA certificate itself (PEM).")
        var pem = false

        func run() async throws {
            let directory = location.directory
            do {
                let summary: Summary
                if let cert {
                    let text = try String(contentsOfFile: cert, encoding: .utf8)
                    summary = try CertsCommand.summary(
                        directory: directory, identity: try TLSIdentity(certificatePEM: text, privateKeyPEM: ""), issued: false, certificateFile: cert
                    )
                } else if !location.tls.namesGiven, let current = try directory.currentServerIdentity() {
                    // Without names, the certificate `serve --tls` made is shown as it is, whatever names it covers: issuing
                    // one for the default names would replace the running server's certificate and print pins it does not use.
                    summary = try CertsCommand.summary(directory: directory, identity: current, issued: false, certificateFile: nil)
                } else {
                    let (identity, issued) = try directory.serverIdentity(names: try location.tls.serverNames())
                    summary = try CertsCommand.summary(directory: directory, identity: identity, issued: issued, certificateFile: nil)
                }
                try CertsCommand.print(summary, json: location.json, title: "server certificate")
                if pem { Swift.print(try directory.authority().certificatePEM, terminator: "") }
            } catch let error as ValidationError {
                throw error
            } catch {
                throw ValidationError("\(error)")
            }
        }
    }

    /// `certs client NAME`: a client certificate for mutual TLS, with a legacy `.p12` for iOS.
    struct Client: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "client",
            abstract: "Issue a client certificate (PEM certificate and key, and with --password a .p12 iOS accepts) signed by the development CA."
        )

        @OptionGroup var location: Location

        @Argument(help: "The client's name (the certificate's CN), e.g. device-1.")
        var name: String

        @Option(
            help: """
                Password of the .p12 (PBE-SHA1-3DES, SHA-1 MAC: the legacy encryption iOS reads); \
                no .p12 without it (MOCK_COLLAB_P12_PASSWORD).
                """
        )
        var password: String?

        struct Issued: Codable {
            var subject: String
            var certificate: String
            var privateKey: String
            var pkcs12: String?
            var authorityPEM: String
        }

        func run() async throws {
            let directory = location.directory
            do {
                let pkcs12Password = password ?? ProcessInfo.processInfo.environment["MOCK_COLLAB_P12_PASSWORD"]
                let (identity, files) = try directory.issueClient(name: name, pkcs12Password: pkcs12Password)
                let issued = Issued(
                    subject: identity.subject, certificate: absolute(files.certificate), privateKey: absolute(files.privateKey),
                    pkcs12: files.pkcs12.map(absolute), authorityPEM: absolute(directory.authorityCertificatePath)
                )
                if location.json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                    Swift.print(String(decoding: try encoder.encode(issued), as: UTF8.self))
                } else {
                    Swift.print("""
                        client certificate: \(issued.subject)
                          certificate: \(issued.certificate)
                          private key: \(issued.privateKey)
                          PKCS#12:     \(issued.pkcs12 ?? "- (give --password to write one)")
                          issued by:   \(issued.authorityPEM)
                        """)
                }
            } catch {
                throw ValidationError("\(error)")
            }
        }

        private func absolute(_ path: String) -> String { CertsCommand.absolute(path) }
    }

    /// `certs rotate`: a new server certificate and key, so pins of the old one stop matching.
    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: "Replace the server certificate and key (new pins; same CA). A running server uses it after a restart."
        )

        @OptionGroup var location: Location

        func run() async throws {
            let directory = location.directory
            do {
                let identity = try directory.rotateServer(names: try location.tls.serverNames())
                try CertsCommand.print(
                    try CertsCommand.summary(directory: directory, identity: identity, issued: true, certificateFile: nil), json: location.json,
                    title: "new server certificate"
                )
            } catch let error as ValidationError {
                throw error
            } catch {
                throw ValidationError("\(error)")
            }
        }
    }
}
