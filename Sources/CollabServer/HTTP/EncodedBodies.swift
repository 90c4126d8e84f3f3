import Foundation
import Hummingbird
import NIOCore

/// Encoded JSON answers of entities, kept per account and reused while the entity stays the same.
///
/// An answer is kept under a slot (its wire type, the entity's id and the expansion asked for) with the
/// value it was encoded from (the entity or its wire value); it is reused only for an equal value, so a
/// changed entity is encoded again whatever changed it. One cache holds one kind of source, compared in
/// place. Each account keeps at most ``capacityPerAccount`` answers and starts over when full; accounts
/// do not share a lock (``PerAccount``).
final class EncodedBodies<Source: Equatable & Sendable>: Sendable {
    /// Where an answer is kept.
    typealias Slot = EncodedBodySlot

    private struct Entry: Sendable {
        /// What the body was encoded from.
        var source: Source
        var body: ByteBuffer
    }

    /// Answers one account keeps at most.
    let capacityPerAccount: Int
    private let accounts: PerAccount<[Slot: Entry]>

    init(capacityPerAccount: Int = 256) {
        self.capacityPerAccount = max(1, capacityPerAccount)
        accounts = PerAccount { [:] }
    }

    /// The JSON body of `source`'s wire value: the one kept in `slot` of `accountId` if it was encoded
    /// from an equal source, else `wire(source)` encoded (and kept). A kept answer costs a comparison
    /// of sources, not the wire value's construction.
    func body(of source: Source, slot: Slot, accountId: String, wire: (Source) -> some Encodable) -> ByteBuffer? {
        let kept = accounts.withLock(accountId) { entries in
            entries[slot].flatMap { $0.source == source ? $0.body : nil }
        }
        if let kept { return kept }
        guard let encoded = try? JSONBody.encoder.encode(wire(source)) else { return nil }
        let body = ByteBuffer(bytes: encoded)
        accounts.withLock(accountId) { entries in
            if entries[slot] == nil, entries.count >= capacityPerAccount { entries.removeAll(keepingCapacity: true) }
            entries[slot] = Entry(source: source, body: body)
        }
        return body
    }

    /// Forgets a deleted account's answers.
    func accountDeleted(_ accountId: String) {
        accounts.remove(accountId)
    }

    /// Answers kept for `accountId` (for tests of the bound).
    func count(accountId: String) -> Int {
        accounts.withExisting(accountId) { $0.count } ?? 0
    }
}

extension EncodedBodies where Source: Encodable {
    /// The JSON body of `value`: the one kept in `slot` of `accountId` if it was encoded from an equal
    /// value, else `value` encoded (and kept).
    func body(of value: Source, slot: Slot, accountId: String) -> ByteBuffer? {
        body(of: value, slot: slot, accountId: accountId) { $0 }
    }
}

/// Where an encoded answer is kept: the wire type, the entity's id and the expansion asked for.
struct EncodedBodySlot: Hashable, Sendable {
    var type: String
    var id: String
    var expansion: Expansion
}

extension JSONBody {
    private static let jsonHeaders: HTTPFields = [.contentType: "application/json"]

    /// A 200 JSON response of `source`'s wire value, encoded once while `source` stays equal (``EncodedBodies``).
    static func response<Source: Equatable & Sendable>(
        _ source: Source, keptIn bodies: EncodedBodies<Source>, slot: EncodedBodySlot, accountId: String, wire: (Source) -> some Encodable
    ) -> Response {
        guard let body = bodies.body(of: source, slot: slot, accountId: accountId, wire: wire) else { return Response(status: .internalServerError) }
        return Response(status: .ok, headers: jsonHeaders, body: .init(byteBuffer: body))
    }
}
