import CompressNIO
import Crypto
import Foundation
import Logging
import NIOCore

/// The web console's files (`Public/`), read once at start and held in memory with their validators
/// and, where it pays, a gzip copy made once.
///
/// Only files found under the directory at start are ever served, looked up by exact relative path:
/// a request path cannot name anything else (no `..`, no symlink escapes, no file created later).
struct ConsoleAssets: Sendable {
    /// One file, ready to answer with.
    struct Asset: Sendable {
        var contentType: String
        var body: ByteBuffer
        /// The gzip-encoded body, when the file is text and compressing made it smaller.
        var gzipped: ByteBuffer?
        /// Strong validator of the identity representation (a content hash); the gzip one adds `-gz`.
        var etag: String
        var gzipETag: String { String(etag.dropLast()) + "-gz\"" }
        /// The file's modification time as an HTTP date.
        var lastModified: String
    }

    /// Files by path relative to the console directory (`index.html`, `js/api.js`).
    let files: [String: Asset]

    /// Bounds: the console is a handful of small files; anything larger is not meant to be here.
    static let maximumFileBytes = 1 << 20
    static let maximumFiles = 200

    /// No console (nothing is served at `/`).
    static let empty = ConsoleAssets(files: [:])

    /// The console bundled with the server (the `Public` resource of this module), if present.
    static var bundledDirectory: URL? {
        Bundle.module.url(forResource: "Public", withExtension: nil)
    }

    /// The console the configuration names: its `consoleDirectory`, else the bundled one.
    static func load(configuration: ServerConfiguration, logger: Logger) -> ConsoleAssets {
        let directory = configuration.consoleDirectory.map { URL(fileURLWithPath: $0) } ?? bundledDirectory
        guard let directory else {
            logger.warning("the web console is not bundled with this build; nothing is served at /")
            return .empty
        }
        return load(from: directory, logger: logger)
    }

    /// Reads every regular file below `directory` (hidden files skipped).
    static func load(from directory: URL, logger: Logger) -> ConsoleAssets {
        let manager = FileManager.default
        let root = directory.resolvingSymlinksInPath().standardizedFileURL
        guard
            let enumerator = manager.enumerator(
                at: root, includingPropertiesForKeys: [.isRegularFileKey, .contentModificationDateKey, .fileSizeKey], options: [.skipsHiddenFiles]
            )
        else {
            logger.warning("web console directory not readable", metadata: ["path": "\(directory.path)"])
            return .empty
        }
        var files: [String: Asset] = [:]
        let rootPath = root.path.hasSuffix("/") ? root.path : root.path + "/"
        for case let url as URL in enumerator {
            guard files.count < maximumFiles,
                let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .contentModificationDateKey, .fileSizeKey]),
                values.isRegularFile == true, (values.fileSize ?? 0) <= maximumFileBytes,
                case let path = url.standardizedFileURL.path, path.hasPrefix(rootPath),
                let data = try? Data(contentsOf: url)
            else { continue }
            let relative = String(path.dropFirst(rootPath.count))
            files[relative] = asset(data, name: relative, modified: values.contentModificationDate ?? Date())
        }
        if files["index.html"] == nil {
            logger.warning("web console has no index.html", metadata: ["path": "\(directory.path)"])
        }
        return ConsoleAssets(files: files)
    }

    static func asset(_ data: Data, name: String, modified: Date) -> Asset {
        let type = contentType(forName: name)
        let body = ByteBuffer(bytes: data)
        var gzipped: ByteBuffer?
        // Images are compressed already; tiny files gain nothing worth a header.
        if type.hasPrefix("text/") || type.hasPrefix("application/json") || type.hasPrefix("image/svg"), data.count > 512 {
            var input = body
            if let compressed = try? input.compress(with: .gzip()), compressed.readableBytes < data.count {
                gzipped = compressed
            }
        }
        let digest = SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined()
        return Asset(contentType: type, body: body, gzipped: gzipped, etag: "\"\(digest)\"", lastModified: httpDate(modified))
    }

    static func contentType(forName name: String) -> String {
        switch name.split(separator: ".").last.map({ $0.lowercased() }) ?? "" {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "json": "application/json"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "ico": "image/x-icon"
        case "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
