import Foundation

/// Names a file's type from its first bytes (magic numbers), so a renamed executable is not taken for
/// the picture its name claims to be. Unknown binary content is `application/octet-stream`; valid
/// UTF-8 without NUL bytes is `text/plain`.
public enum ContentSniffer {
    /// How many leading bytes ``sniff(_:)`` looks at.
    public static let headLength = 512

    /// Types of programs the server never accepts unless a configuration unblocks them (the mock's default).
    public static let executableTypes: Set<String> = [
        "application/x-executable", "application/x-msdownload", "application/x-mach-binary", "text/x-shellscript", "application/java-archive",
    ]

    private struct Signature {
        var offset: Int
        var bytes: [UInt8]
        var type: String
    }

    private static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

    private static let signatures: [Signature] = [
        Signature(offset: 0, bytes: [0xFF, 0xD8, 0xFF], type: "image/jpeg"),
        Signature(offset: 0, bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], type: "image/png"),
        Signature(offset: 0, bytes: ascii("GIF87a"), type: "image/gif"),
        Signature(offset: 0, bytes: ascii("GIF89a"), type: "image/gif"),
        Signature(offset: 0, bytes: ascii("%PDF-"), type: "application/pdf"),
        Signature(offset: 0, bytes: [0x7F, 0x45, 0x4C, 0x46], type: "application/x-executable"),
        Signature(offset: 0, bytes: ascii("MZ"), type: "application/x-msdownload"),
        Signature(offset: 0, bytes: [0xFE, 0xED, 0xFA, 0xCE], type: "application/x-mach-binary"),
        Signature(offset: 0, bytes: [0xFE, 0xED, 0xFA, 0xCF], type: "application/x-mach-binary"),
        Signature(offset: 0, bytes: [0xCE, 0xFA, 0xED, 0xFE], type: "application/x-mach-binary"),
        Signature(offset: 0, bytes: [0xCF, 0xFA, 0xED, 0xFE], type: "application/x-mach-binary"),
        Signature(offset: 0, bytes: [0xCA, 0xFE, 0xBA, 0xBE], type: "application/x-mach-binary"),
        Signature(offset: 0, bytes: ascii("#!"), type: "text/x-shellscript"),
        Signature(offset: 0, bytes: [0x50, 0x4B, 0x03, 0x04], type: "application/zip"),
        Signature(offset: 0, bytes: [0x1F, 0x8B], type: "application/gzip"),
        Signature(offset: 0, bytes: ascii("BM"), type: "image/bmp"),
        Signature(offset: 0, bytes: [0x49, 0x49, 0x2A, 0x00], type: "image/tiff"),
        Signature(offset: 0, bytes: [0x4D, 0x4D, 0x00, 0x2A], type: "image/tiff"),
        Signature(offset: 0, bytes: ascii("OggS"), type: "audio/ogg"),
        Signature(offset: 0, bytes: ascii("ID3"), type: "audio/mpeg"),
    ]

    /// The type the content's first bytes show.
    public static func sniff(_ head: some Collection<UInt8>) -> String {
        let bytes = Array(head.prefix(headLength))
        for signature in signatures where bytes.count >= signature.offset + signature.bytes.count {
            if bytes[signature.offset..<(signature.offset + signature.bytes.count)].elementsEqual(signature.bytes) { return signature.type }
        }
        if bytes.count >= 12, bytes[0..<4].elementsEqual(ascii("RIFF")) {
            if bytes[8..<12].elementsEqual(ascii("WEBP")) { return "image/webp" }
            if bytes[8..<12].elementsEqual(ascii("WAVE")) { return "audio/wav" }
        }
        if bytes.count >= 12, bytes[4..<8].elementsEqual(ascii("ftyp")) {
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            switch brand {
            case "heic", "heix", "heim", "heis", "mif1", "msf1": return "image/heic"
            case "qt  ": return "video/quicktime"
            default: return "video/mp4"
            }
        }
        if isText(bytes) { return "text/plain" }
        return "application/octet-stream"
    }

    /// Valid UTF-8 (allowing a sequence cut at the end of the head) without NUL or most control bytes.
    static func isText(_ bytes: [UInt8]) -> Bool {
        if bytes.contains(where: { $0 == 0 || ($0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D && $0 != 0x0C && $0 != 0x1B) }) { return false }
        var trimmed = bytes[...]
        // A multi-byte sequence may be cut by the head's end: drop up to three trailing bytes.
        for _ in 0..<3 {
            if String(validating: trimmed, as: UTF8.self) != nil { return true }
            guard let last = trimmed.last, last >= 0x80 else { return false }
            trimmed = trimmed.dropLast()
        }
        return String(validating: trimmed, as: UTF8.self) != nil
    }

    /// The type a file extension stands for, for the extensions whose content ``sniff(_:)`` recognises.
    public static func type(forExtension ext: String) -> String? {
        switch ext.lowercased() {
        case "jpg", "jpeg", "jpe": "image/jpeg"
        case "png": "image/png"
        case "gif": "image/gif"
        case "pdf": "application/pdf"
        case "webp": "image/webp"
        case "heic", "heif": "image/heic"
        case "bmp": "image/bmp"
        case "tif", "tiff": "image/tiff"
        case "mp4", "m4v": "video/mp4"
        case "mov": "video/quicktime"
        case "zip": "application/zip"
        case "gz": "application/gzip"
        case "mp3": "audio/mpeg"
        case "ogg": "audio/ogg"
        case "wav": "audio/wav"
        case "txt", "csv", "json", "md", "log": "text/plain"
        default: nil
        }
    }

    /// The type a file is stored and served with: the sniffed one, except that plain text may keep a
    /// more precise textual type the client declared (`text/csv`, `application/json`).
    public static func effectiveType(sniffed: String, declared: String?) -> String {
        guard sniffed == "text/plain", let declared = declared.map(normalize), !declared.isEmpty,
            declared.utf8.count <= maxDeclaredTypeLength
        else { return sniffed }
        if declared.hasPrefix("text/") && declared != "text/x-shellscript" || declared == "application/json" { return declared }
        return sniffed
    }

    /// The longest declared type kept: it is stored with the file, so it is bounded like a name (a
    /// registered media type's type and subtype are each at most 127 characters).
    public static let maxDeclaredTypeLength = 255

    /// A media type without parameters, lower-cased.
    public static func normalize(_ type: String) -> String {
        (type.split(separator: ";").first.map(String.init) ?? "").trimmingCharacters(in: .whitespaces).lowercased()
    }
}
