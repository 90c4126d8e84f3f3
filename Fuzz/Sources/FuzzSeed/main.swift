import CollabCore
import CollabSeed
import Foundation

/// One input: a seed's text, YAML or JSON, as `POST /_mock/v1/seed` or `--seed` takes it.
///
/// Properties: parsing ends (bounded by the seed's size: no anchors or aliases, a node budget) with a
/// seed or a `CollabError`, and never traps; an anchor or alias is always caught by the text scan
/// (whose message names the line) and never only by the second look at the composed nodes, because
/// Yams may already have expanded aliases while composing.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSeed(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    do {
        _ = try SeedLoader.parse(text)
    } catch {
        let caughtLate = error.message.contains("anchors and aliases") && !error.message.contains("(line ")
        precondition(!caughtLate, "the text scan missed an anchor or alias: \(error.message)")
    }
    return 0
}
