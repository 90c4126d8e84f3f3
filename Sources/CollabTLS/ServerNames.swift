import Foundation
import SwiftASN1
public import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The DNS names and IP addresses a server certificate covers.
public struct ServerNames: Sendable, Equatable {
    /// DNS names, lower-cased.
    public var dnsNames: [String]
    /// IP addresses in their network byte form (4 or 16 bytes).
    public var ipAddresses: [[UInt8]]
    /// The names as given, in order, for messages.
    public var written: [String]

    /// The default set: `localhost`, `127.0.0.1`, `::1` and this machine's host name.
    public static var defaults: [String] {
        var names = ["localhost", "127.0.0.1", "::1"]
        let host = ProcessInfo.processInfo.hostName.lowercased()
        if !host.isEmpty, host != "localhost", IPAddressParser.parse(host) == nil { names.append(host) }
        return names
    }

    /// Parses names; each is an IPv4 or IPv6 address or a DNS name (a leading `*.` allowed).
    /// - Throws: ``TLSSetupError`` for an empty list or a malformed name.
    public init(_ names: [String]) throws(TLSSetupError) {
        var dns: [String] = []
        var ips: [[UInt8]] = []
        var written: [String] = []
        for raw in names {
            let name = raw.trimmingCharacters(in: .whitespaces)
            if name.isEmpty { continue }
            if let bytes = IPAddressParser.parse(name) {
                if !ips.contains(bytes) { ips.append(bytes) }
            } else {
                let lower = name.lowercased()
                let labels = lower.hasPrefix("*.") ? lower.dropFirst(2).split(separator: ".", omittingEmptySubsequences: false) :
                    lower.split(separator: ".", omittingEmptySubsequences: false)
                let valid = !labels.isEmpty && labels.allSatisfy { label in
                    !label.isEmpty && label.count <= 63 && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
                }
                guard valid, lower.count <= 253 else { throw TLSSetupError("'\(name)' is neither an IP address nor a DNS name") }
                if !dns.contains(lower) { dns.append(lower) }
            }
            written.append(name)
        }
        guard !written.isEmpty else { throw TLSSetupError("a server certificate needs at least one name") }
        self.dnsNames = dns
        self.ipAddresses = ips
        self.written = written
    }

    /// The names as subject alternative names.
    public var generalNames: [GeneralName] {
        dnsNames.map { GeneralName.dnsName($0) } + ipAddresses.map { GeneralName.ipAddress(ASN1OctetString(contentBytes: ArraySlice($0))) }
    }

    /// The names a certificate's subject alternative names cover.
    public static func covered(by certificate: Certificate) -> ServerNames? {
        guard let san = try? certificate.extensions.subjectAlternativeNames else { return nil }
        var names = ServerNames(dnsNames: [], ipAddresses: [], written: [])
        for name in san {
            switch name {
            case .dnsName(let dns): names.dnsNames.append(dns.lowercased())
            case .ipAddress(let octets): names.ipAddresses.append(Array(octets.bytes))
            default: break
            }
        }
        return names
    }

    /// Whether every name of `other` is covered here.
    public func covers(_ other: ServerNames) -> Bool {
        other.dnsNames.allSatisfy(dnsNames.contains) && other.ipAddresses.allSatisfy(ipAddresses.contains)
    }

    private init(dnsNames: [String], ipAddresses: [[UInt8]], written: [String]) {
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
        self.written = written
    }
}

/// Parses textual IP addresses with the C library (`inet_pton`).
enum IPAddressParser {
    static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}

/// Why TLS could not be set up: a bad name, a missing or unreadable file, a failed tool.
public struct TLSSetupError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, for people.
    public let message: String
    /// Creates an error.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
