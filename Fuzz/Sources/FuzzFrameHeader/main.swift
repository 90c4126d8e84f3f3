import CollabWire
import Foundation

/// One input: an MCF1 message as a client would send it over the live WebSocket.
///
/// Properties: decoding never traps; a decoded frame re-encodes to exactly the input; validation
/// never traps and accepts only JPEG or PNG within the size bound.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrameHeader(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    guard let (header, image) = try? FrameHeader.decode(bytes) else { return 0 }
    precondition(header.encode(image: image) == Data(bytes), "a decoded frame does not re-encode to its input")
    precondition(header.privateAreas.count <= FrameHeader.maximumPrivateAreas)
    if let format = try? header.validate(image: image, maxImageBytes: 4096) {
        precondition(image.count <= 4096)
        precondition(FrameImageFormat(signatureOf: image) == format)
    }
    return 0
}
