import CollabSeed
import Foundation

/// One input: a seed's text, YAML or JSON, as `POST /_mock/v1/seed` or `--seed` takes it.
///
/// Property: parsing ends (bounded by the seed's size: no anchors or aliases, a node budget) with a
/// seed or a `CollabError`, and never traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSeed(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    _ = try? SeedLoader.parse(text)
    return 0
}
