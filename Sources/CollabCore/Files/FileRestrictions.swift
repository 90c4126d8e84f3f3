public import CollabWire
import Foundation

/// Why a file was refused. The server answers each with its own status and the type as the typed
/// error body's `type`.
public struct FileRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Codable, CaseIterable, NamedCases {
        /// The type or extension is not allowed (HTTP 415).
        case typeNotAllowed = "FILE_TYPE_NOT_ALLOWED"
        /// The content is not what the file's extension says (HTTP 415).
        case typeMismatch = "FILE_TYPE_MISMATCH"
        /// Larger than the configured maximum (HTTP 413).
        case tooLarge = "FILE_TOO_LARGE"
        /// The account's share of the storage quota, or the server's quota, is used up (HTTP 507).
        case quotaExceeded = "FILE_QUOTA_EXCEEDED"
        /// An upload interceptor rejected it (HTTP 403).
        case rejected = "FILE_REJECTED"
        /// A message interceptor rejected its FILE message (HTTP 403).
        case messageRejected = "MESSAGE_REJECTED"
        /// No content (HTTP 400).
        case empty = "FILE_EMPTY"
        /// Too many uploads at once, of the account or of the server (HTTP 429).
        case busy = "FILE_UPLOADS_BUSY"
        /// The body arrived slower than the minimum rate (HTTP 408).
        case tooSlow = "FILE_UPLOAD_TOO_SLOW"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// The file-manager properties that restrict uploads, resolved along the configuration cascade
/// (GLOBAL → ACCOUNT → AREA → APIKEY).
///
/// `fileTypeInputTagHint` is the vendor's name (the SDK documentation names it); the other names are
/// MockCollab's, chosen in the same namespace.
public struct FileRestrictions: Sendable, Equatable {
    /// Vendor: a hint for the app's file picker (an HTML `accept` attribute value); not enforced.
    public static let fileTypeInputTagHintKey = "com.unblu.filemanager.fileTypeInputTagHint"
    /// Mock: comma-separated MIME types (`image/*` allowed) an upload must match; empty or unset: any.
    public static let allowedMimeTypesKey = "com.unblu.filemanager.allowedMimeTypes"
    /// Mock: comma-separated MIME types refused; unset: program types (executables, scripts).
    public static let blockedMimeTypesKey = "com.unblu.filemanager.blockedMimeTypes"
    /// Mock: comma-separated extensions (without the dot) an upload's name must have; empty or unset: any.
    public static let allowedExtensionsKey = "com.unblu.filemanager.allowedExtensions"
    /// Mock: comma-separated extensions refused; unset: `exe,bat,cmd,com,msi,sh,app,dmg,jar,scr`.
    public static let blockedExtensionsKey = "com.unblu.filemanager.blockedExtensions"
    /// Mock: the largest upload in bytes; it can lower, never raise, the server's `--max-file-size`.
    public static let maxFileSizeKey = "com.unblu.filemanager.maxFileSize"
    /// Mock: how long an upload waits for each file-upload interceptor's decision before it is
    /// rejected, in milliseconds (default 30000, 100 to 300000).
    public static let interceptorTimeoutKey = "com.unblu.filemanager.interceptorTimeoutMillis"

    public static let defaultBlockedExtensions: Set<String> = ["exe", "bat", "cmd", "com", "msi", "sh", "app", "dmg", "jar", "scr"]

    public var allowedMimeTypes: [String]
    public var blockedMimeTypes: [String]
    public var allowedExtensions: Set<String>
    public var blockedExtensions: Set<String>
    public var maxFileSize: Int64
    public var inputTagHint: String?
    /// How long to wait for an interceptor's decision, in milliseconds.
    public var interceptorTimeoutMillis: Int

    /// Reads the restrictions from a cascade; `serverMaxFileSize` caps the configured maximum.
    public init(cascade: ConfigurationCascade, serverMaxFileSize: Int64) {
        func list(_ key: String) -> [String]? {
            cascade.value(for: key).map { value in
                value.value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
            }
        }
        allowedMimeTypes = (list(Self.allowedMimeTypesKey) ?? []).map(ContentSniffer.normalize)
        blockedMimeTypes = (list(Self.blockedMimeTypesKey) ?? Array(ContentSniffer.executableTypes).sorted()).map(ContentSniffer.normalize)
        allowedExtensions = Set((list(Self.allowedExtensionsKey) ?? []).map { $0.hasPrefix(".") ? String($0.dropFirst()) : $0 })
        blockedExtensions = list(Self.blockedExtensionsKey).map { Set($0.map { $0.hasPrefix(".") ? String($0.dropFirst()) : $0 }) }
            ?? Self.defaultBlockedExtensions
        let configured = cascade.value(for: Self.maxFileSizeKey).flatMap { Int64($0.value) }.map { max(0, $0) }
        maxFileSize = min(configured ?? serverMaxFileSize, serverMaxFileSize)
        inputTagHint = cascade.value(for: Self.fileTypeInputTagHintKey)?.value
        interceptorTimeoutMillis = min(max(cascade.int(Self.interceptorTimeoutKey, default: 30_000), 100), 300_000)
    }

    /// Checks the name alone, before any byte is read.
    public func checkName(_ name: String) throws(FileRefusal) {
        let ext = FileAttachment.fileExtension(of: name)
        if let ext, blockedExtensions.contains(ext) { throw FileRefusal(.typeNotAllowed, "files with the extension '.\(ext)' are not allowed") }
        if !allowedExtensions.isEmpty {
            guard let ext, allowedExtensions.contains(ext) else {
                throw FileRefusal(
                    .typeNotAllowed,
                    "only files with the extensions \(allowedExtensions.sorted().map { "." + $0 }.joined(separator: ", ")) are allowed"
                )
            }
        }
    }

    /// Checks the content's type against the lists and the name's extension.
    /// - Parameters:
    ///   - name: The file name (its extension must agree with the content when it names a known type).
    ///   - type: The effective type (see ``ContentSniffer/effectiveType(sniffed:declared:)``).
    public func checkContent(name: String, type: String) throws(FileRefusal) {
        if let ext = FileAttachment.fileExtension(of: name), let expected = ContentSniffer.type(forExtension: ext) {
            let agrees = expected == type || (expected == "text/plain" && (type.hasPrefix("text/") || type == "application/json"))
            guard agrees, !ContentSniffer.executableTypes.contains(type) else {
                throw FileRefusal(.typeMismatch, "the content is \(type), not what the extension '.\(ext)' says (\(expected))")
            }
        }
        if blockedMimeTypes.contains(where: { Self.matches(type, pattern: $0) }) {
            throw FileRefusal(.typeNotAllowed, "files of type \(type) are not allowed")
        }
        if !allowedMimeTypes.isEmpty, !allowedMimeTypes.contains(where: { Self.matches(type, pattern: $0) }) {
            throw FileRefusal(.typeNotAllowed, "files of type \(type) are not allowed; allowed: \(allowedMimeTypes.joined(separator: ", "))")
        }
    }

    /// Checks a size (declared or read so far).
    public func checkSize(_ size: Int64) throws(FileRefusal) {
        guard size <= maxFileSize else { throw FileRefusal(.tooLarge, "the file is larger than the maximum of \(maxFileSize) bytes") }
    }

    /// `image/*` matches every image type; `*/*` or `*` matches everything.
    static func matches(_ type: String, pattern: String) -> Bool {
        if pattern == "*" || pattern == "*/*" { return true }
        if pattern.hasSuffix("/*") { return type.hasPrefix(pattern.dropLast()) }
        return type == pattern
    }
}
