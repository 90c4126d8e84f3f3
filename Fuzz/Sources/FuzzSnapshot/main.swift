import CollabCore
import Crypto
import Foundation

/// One input: a snapshot file, as `POST /_mock/v1/snapshot` and `serve --restore` take it, read in two
/// pieces (the server reads it as it arrives), its file contents staged as the server stages them.
///
/// Properties: reading ends with the accounts or a `CollabError`, and what the server then does with a
/// restored account never traps, whatever times, sizes, sequences or versions its records hold: the
/// deadlines it runs (now, and at the end of the clock's range), recording sizes and minutes, the file
/// look-ups of every conversation, a search, and the export that writes the accounts out again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnapshot(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let context = OperationContext(now: 1_800_000_000_000, ids: .system)
    var reader = SnapshotReader()
    do {
        let middle = count / 2
        for piece in [UnsafeRawBufferPointer(rebasing: bytes[..<middle]), UnsafeRawBufferPointer(rebasing: bytes[middle...])] {
            for item in try reader.read(piece) {
                let content = item.content
                let digest = SHA256.hash(data: content.bytes).map { String(format: "%02x", $0) }.joined()
                let staged = SnapshotReader.StagedFile(
                    conversationId: content.conversationId, fileId: content.fileId, size: Int64(content.bytes.count), sha256: digest)
                reader.staged(staged, account: item.account)
            }
        }
        let prepared = try reader.finish(context: context)
        for account in prepared.accounts { exercise(account, context: context) }
    } catch {
        // A refusal is an answer; only a trap fails the run.
    }
    return 0
}

/// What the server does with a restored account after the import answered.
func exercise(_ restored: AccountState, context: OperationContext) {
    var state = restored
    let admin = Principal(accountId: state.accountId, userId: nil, personId: nil, role: .admin, method: .controlToken)
    for now in [context.now, ClockSetting.instants.upperBound, ClockSetting.instants.lowerBound] {
        var changes = ChangeSet()
        _ = state.runDueWork(
            keyRotationInterval: 30 * 86_400_000, keyOverlap: 86_400_000, clientIdleTimeout: 3_600_000,
            context: OperationContext(now: now, ids: .system), changes: &changes)
    }
    for conversation in state.conversations.values {
        for recording in conversation.recordings ?? [] {
            _ = recording.totalSize(at: context.now)
            _ = recording.recordedMinutes
        }
        _ = state.fileMessages(of: conversation.id, includeInternal: true)
    }
    _ = state.recordedMinutes(from: nil, to: nil)
    _ = state.recordedMinutes(from: ClockSetting.instants.lowerBound, to: ClockSetting.instants.upperBound)
    _ = try? state.searchConversations(SearchQuery(limit: 10), for: admin)
    let records = state.storedEntities.dropFirst().map { StoredRecord(encoding: $0) }
    let snapshot = Snapshot(
        scope: .account, takenAt: context.now, clock: nil, globalConfiguration: nil, accounts: [.init(account: state.account, records: records)])
    _ = try? snapshot.encoded()
}
