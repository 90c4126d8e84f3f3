import Foundation
import Hummingbird
import NIOCore

/// Encoded JSON answers of entities, kept per account and reused while the entity stays the same.
///
/// An answer is kept under a slot (its wire type, the entity's id and the expansion asked for) with the
/// wire value it was encoded from; it is reused only for an equal value, so a changed entity is encoded
/// again whatever changed it. Each account keeps at most ``capacityPerAccount`` answers and starts over
/// when full; accounts do not share a lock (``PerAccount``).
final class EncodedBodies: Sendable {
    /// Where an answer is kept.
    struct Slot: Hashable, Sendable {
        var type: String
        var id: String
        var expansion: Expansion
    }

    private struct Entry: Sendable {
        var value: any Sendable
        var body: ByteBuffer
    }

    /// Answers one account keeps at most.
    let capacityPerAccount: Int
    private let accounts: PerAccount<[Slot: Entry]>

    init(capacityPerAccount: Int = 256) {
        self.capacityPerAccount = max(1, capacityPerAccount)
        accounts = PerAccount { [:] }
    }

    /// The JSON body of `value`: the one kept in `slot` of `accountId` if it was encoded from an equal
    /// value, else `value` encoded (and kept).
    func body<Value: Encodable & Equatable & Sendable>(of value: Value, slot: Slot, accountId: String) -> ByteBuffer? {
        let kept = accounts.withLock(accountId) { entries in
            entries[slot].flatMap { ($0.value as? Value) == value ? $0.body : nil }
        }
        if let kept { return kept }
        guard let encoded = try? JSONBody.encoder.encode(value) else { return nil }
        let body = ByteBuffer(bytes: encoded)
        accounts.withLock(accountId) { entries in
            if entries[slot] == nil, entries.count >= capacityPerAccount { entries.removeAll(keepingCapacity: true) }
            entries[slot] = Entry(value: value, body: body)
        }
        return body
    }

    /// Answers kept for `accountId` (for tests of the bound).
    func count(accountId: String) -> Int {
        accounts.withExisting(accountId) { $0.count } ?? 0
    }
}

extension JSONBody {
    private static let jsonHeaders: HTTPFields = [.contentType: "application/json"]

    /// A 200 JSON response of an entity's wire `value`, encoded once while it stays equal (``EncodedBodies``).
    static func response<Value: Encodable & Equatable & Sendable>(
        _ value: Value, keptIn bodies: EncodedBodies, slot: EncodedBodies.Slot, accountId: String
    ) -> Response {
        guard let body = bodies.body(of: value, slot: slot, accountId: accountId) else { return Response(status: .internalServerError) }
        return Response(status: .ok, headers: jsonHeaders, body: .init(byteBuffer: body))
    }
}
