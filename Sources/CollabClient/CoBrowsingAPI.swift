public import CollabWire
import Foundation
import Synchronization

/// One captured screen: RGBA pixels, and where the app's tagged views are on it.
public struct ScreenCapture: Sendable, Equatable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// `width × height × 4` bytes, row by row.
    public var rgba: [UInt8]
    /// The frames of the screen's tagged views (tag → rectangle in pixels), as the app's view hierarchy
    /// lays them out now.
    public var views: [Int: PrivateArea]

    /// A capture of `width × height` RGBA pixels with the frames of its tagged views.
    public init(width: Int, height: Int, rgba: [UInt8], views: [Int: PrivateArea] = [:]) {
        self.width = width
        self.height = height
        self.rgba = rgba
        self.views = views
    }
}

/// The co-browsing module's API, shaped like the SDK's: private views by tag and private areas by id,
/// masked in every frame before it leaves the device (the agent never receives their pixels), and
/// declared in each frame's header so a test can check what was hidden.
public final class CoBrowsingAPI: Sendable {
    /// The masking colour (opaque mid-grey).
    public static let maskPixel: [UInt8] = [0x80, 0x80, 0x80, 0xFF]

    /// Sends the masked frames (changed ones only, at the session's rate).
    public let uploader: CoBrowsingUploader
    private let state = Mutex(Masks())

    private struct Masks {
        var viewTags: Set<Int> = []
        var areas: [String: PrivateArea] = [:]
    }

    /// A co-browsing API sending through `uploader`, with nothing private yet.
    public init(uploader: CoBrowsingUploader) {
        self.uploader = uploader
    }

    /// Hides the view with this tag from the agent, wherever it is on the screen.
    public func addPrivateView(tag: Int) { _ = state.withLock { $0.viewTags.insert(tag) } }

    /// Shows the view with this tag again.
    public func removePrivateView(tag: Int) { _ = state.withLock { $0.viewTags.remove(tag) } }

    /// Hides a rectangle of the screen (in pixels), under an id to remove it by.
    public func addPrivateArea(id: String, frame: PrivateArea) { state.withLock { $0.areas[id] = frame } }

    /// Shows a private area again.
    public func removePrivateArea(id: String) { _ = state.withLock { $0.areas.removeValue(forKey: id) } }

    /// The rectangles masked on `capture`: the tagged private views it shows and every private area,
    /// clipped to the screen, in a stable order (at most the 32 a frame header carries; beyond that
    /// the bounding box of the rest is masked).
    public func masks(for capture: ScreenCapture) -> [PrivateArea] {
        let (tags, areas) = state.withLock { ($0.viewTags, $0.areas) }
        var rectangles = tags.sorted().compactMap { capture.views[$0] } + areas.keys.sorted().compactMap { areas[$0] }
        rectangles = rectangles.compactMap { clip($0, width: capture.width, height: capture.height) }
        if rectangles.count > FrameHeader.maximumPrivateAreas {
            let rest = rectangles[(FrameHeader.maximumPrivateAreas - 1)...]
            let minX = rest.map(\.x).min() ?? 0
            let minY = rest.map(\.y).min() ?? 0
            let maxX = rest.map { $0.x + $0.width }.max() ?? 0
            let maxY = rest.map { $0.y + $0.height }.max() ?? 0
            let bounds = PrivateArea(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
            rectangles = Array(rectangles.prefix(FrameHeader.maximumPrivateAreas - 1)) + [bounds]
        }
        return rectangles
    }

    /// Masks the private views and areas in `capture`, encodes it (PNG) and sends it if it changed and
    /// is due (see ``CoBrowsingUploader``).
    public func send(_ capture: ScreenCapture) async throws(CollabClientError) -> CoBrowsingUploader.Outcome {
        guard capture.width > 0, capture.height > 0, capture.rgba.count == capture.width * capture.height * 4 else {
            throw CollabClientError(code: .badRequest, status: nil, message: "a capture needs width × height × 4 bytes of RGBA")
        }
        let rectangles = masks(for: capture)
        var pixels = capture.rgba
        for rectangle in rectangles {
            for y in rectangle.y..<(rectangle.y + rectangle.height) {
                for x in rectangle.x..<(rectangle.x + rectangle.width) {
                    let offset = (y * capture.width + x) * 4
                    pixels.replaceSubrange(offset..<(offset + 4), with: Self.maskPixel)
                }
            }
        }
        let image = PNGEncoder.encode(width: capture.width, height: capture.height, rgba: pixels)
        return try await uploader.submit(image: image, width: capture.width, height: capture.height, privateAreas: rectangles)
    }

    private func clip(_ area: PrivateArea, width: Int, height: Int) -> PrivateArea? {
        let x0 = max(0, area.x)
        let y0 = max(0, area.y)
        let x1 = min(width, area.x + area.width)
        let y1 = min(height, area.y + area.height)
        guard x1 > x0, y1 > y0 else { return nil }
        return PrivateArea(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
