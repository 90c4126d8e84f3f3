/// The vendor product version the server answers as (`global/productVersion`), and which SDK majors pair
/// with it.
///
/// The vendor's iOS SDK documentation pairs server and SDK majors: Unblu 6 serves SDK 3; Unblu 7 serves
/// SDK 3 and 4. A client that declares (in `device.sdkVersion`) an SDK major its server does not pair
/// with is refused with `UNSUPPORTED_SERVER_VERSION`. Server majors the documentation does not cover,
/// and clients that declare no parseable version, are not checked.
public struct ProductVersion: Sendable, Equatable {
    /// The version text, e.g. `7.49.2`.
    public var text: String
    /// Its major, e.g. 7.
    public var major: Int

    /// SDK majors each documented server major pairs with.
    public static let pairings: [Int: ClosedRange<Int>] = [6: 3...3, 7: 3...4]

    /// A product version from its text; `nil` unless it starts with a number (`7`, `7.49`, `7.49.2-rc1`).
    public init?(_ text: String) {
        guard (1...64).contains(text.count), let major = Self.major(of: text) else { return nil }
        self.text = text
        self.major = major
    }

    /// The SDK majors this server version pairs with, `nil` when the documentation says nothing.
    public var pairedSDKMajors: ClosedRange<Int>? { Self.pairings[major] }

    /// Refuses a client whose SDK major does not pair with this server.
    /// - Parameter sdkVersion: What the client declared, e.g. `4.2.1`.
    public func check(sdkVersion: String?) throws(CollabError) {
        guard let paired = pairedSDKMajors, let sdkVersion, let sdkMajor = Self.major(of: sdkVersion), !paired.contains(sdkMajor) else { return }
        let supported = paired.lowerBound == paired.upperBound ? "\(paired.lowerBound)" : "\(paired.lowerBound) to \(paired.upperBound)"
        throw CollabError(
            .unsupportedServerVersion, "this server (\(text)) does not pair with mobile SDK \(sdkMajor); it serves SDK \(supported)"
        )
    }

    /// The leading number of a dotted version, e.g. 4 for `4.2.1` or `v4.2`.
    static func major(of text: String) -> Int? {
        let trimmed = text.hasPrefix("v") || text.hasPrefix("V") ? text.dropFirst() : Substring(text)
        return Int(trimmed.prefix { $0.isNumber }.prefix(4))
    }
}
