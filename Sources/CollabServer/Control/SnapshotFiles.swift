import CollabCore
import CollabStore
import CollabWire
import Foundation
import NIOCore
import NIOFoundationCompat

/// The file contents of snapshots: read with an account's records on export, within the snapshot size
/// limit; on import staged as they are read and put in place once the records commit (see
/// ``CollabEnvironment/importSnapshot(_:declaredLength:)``).
extension CollabEnvironment {
    /// One account's records (with or without credentials) and the contents of its files, charging the
    /// files' base64 size to `budget`.
    /// - Throws: `payloadTooLarge` when the files do not fit in what is left of the budget; `notFound`
    ///   for an account that is gone.
    func accountSnapshot(_ accountId: String, secrets: SnapshotSecrets, budget: inout Int) async throws -> Snapshot.AccountData {
        var (data, stored) = try repository.snapshotWithFiles(account: accountId, secrets: secrets)
        let encodedSize = stored.reduce(0) { $0 + Self.base64Size($1.size) }
        budget -= encodedSize
        guard budget >= 0 else { throw snapshotTooLarge(configuration.maxSnapshotBytes - budget) }
        for file in stored {
            // A file removed since the records were read (its conversation deleted meanwhile) is left out:
            // its download answers 404 on the restored server too.
            guard let bytes = await files.contents(accountId: accountId, conversationId: file.conversationId, fileId: file.fileId) else { continue }
            data.files.append(Snapshot.FileContent(conversationId: file.conversationId, fileId: file.fileId, bytes: bytes))
        }
        return data
    }

    /// The refusal of an export whose file contents alone pass the snapshot size limit (the limit an
    /// import has too): the files are never read into memory then.
    func snapshotTooLarge(_ bytes: Int) -> CollabError {
        CollabError(
            .payloadTooLarge,
            "the snapshot's file contents would take \(bytes) bytes (base64), more than the \(configuration.maxSnapshotBytes) bytes a snapshot "
                + "may have; remove files or snapshot one account"
        )
    }

    /// Imports a snapshot file read whole (`serve --restore`), in the pieces a request body would bring.
    func importSnapshot(from data: Data) async throws -> SnapshotImportResult {
        try await importSnapshot(DataPieces(data: data))
    }

    static func base64Size(_ bytes: Int64) -> Int { Int(max(0, bytes).adding(saturating: 2) / 3 * 4) }
}

/// A file's bytes as a body of 64 KiB pieces.
struct DataPieces: AsyncSequence, Sendable {
    let data: Data

    struct AsyncIterator: AsyncIteratorProtocol {
        let data: Data
        var offset: Int

        mutating func next() async throws -> ByteBuffer? {
            guard offset < data.endIndex else { return nil }
            let end = Swift.min(offset + 64 * 1024, data.endIndex)
            defer { offset = end }
            return ByteBuffer(data: data[offset..<end])
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(data: data, offset: data.startIndex) }
}
