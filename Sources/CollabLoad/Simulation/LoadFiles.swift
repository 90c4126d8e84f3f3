import Foundation

/// Files the `files` scenario uploads.
enum LoadFiles {
    /// A PNG signature followed by filler: the server sniffs the type from the first bytes.
    static func picture(bytes: Int, seed: Int) -> Data {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        data.append(contentsOf: (0..<max(0, bytes - 8)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ seed) })
        return data
    }
}
