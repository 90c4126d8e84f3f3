import CollabCore
import CollabStore
import Foundation

/// The file contents of snapshots: read with an account's records on export, within the snapshot size
/// limit; put in place before the records on import.
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

    /// Stores the snapshot's file contents (checked against its FILE messages already).
    /// - Returns: The files that were not stored before, to remove if the records are refused.
    func putFiles(of snapshot: Snapshot) async throws -> [(accountId: String, conversationId: String, fileId: String)] {
        var added: [(accountId: String, conversationId: String, fileId: String)] = []
        do {
            for data in snapshot.accounts {
                let accountId = data.account.id
                for file in data.files {
                    let existed = files.contains(accountId: accountId, conversationId: file.conversationId, fileId: file.fileId)
                    try await files.put(file.bytes, accountId: accountId, conversationId: file.conversationId, fileId: file.fileId)
                    if !existed { added.append((accountId, file.conversationId, file.fileId)) }
                }
            }
        } catch {
            for file in added { await files.remove(accountId: file.accountId, conversationId: file.conversationId, fileId: file.fileId) }
            throw error
        }
        return added
    }

    static func base64Size(_ bytes: Int64) -> Int { Int((bytes + 2) / 3 * 4) }
}
