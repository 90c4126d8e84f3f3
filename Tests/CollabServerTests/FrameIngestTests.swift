import CollabCore
import CollabWire
import Foundation
import NIOCore
import Testing

@testable import CollabServer

/// Frame ingestion on its own: throttle, duplicates, rejection, viewers, the end of a session and
/// per-account removal, with time passed in.
@Suite("Frame ingestion")
struct FrameIngestTests {
    static func jpeg(_ marker: UInt8) -> Data { Data([0xFF, 0xD8, 0xFF, 0xE0, marker, 1, 2, 3]) }

    static func header(_ session: String, _ sequence: UInt32) -> FrameHeader {
        FrameHeader(sessionId: session, sequence: sequence, captureTime: 0, width: 10, height: 20)
    }

    @Test("accepted, throttled with the wait, duplicate, rejected: each counted for its account")
    func outcomes() {
        let ingest = FrameIngest(maxFrameBytes: 64)
        let first = ingest.ingest(sessionId: "s", accountId: "a", header: Self.header("s", 1), image: Self.jpeg(1), maxFps: 5, now: 1_000)
        #expect(first.type == "frame.accepted")
        let early = ingest.ingest(sessionId: "s", accountId: "a", header: Self.header("s", 2), image: Self.jpeg(2), maxFps: 5, now: 1_100)
        #expect(early.type == "frame.throttled")
        #expect(early.retryAfterMs == 50, "due at 1200 less the 50 ms tolerance")
        let same = ingest.ingest(sessionId: "s", accountId: "a", header: Self.header("s", 3), image: Self.jpeg(1), maxFps: 5, now: 1_200)
        #expect(same.type == "frame.duplicate")
        let next = ingest.ingest(sessionId: "s", accountId: "a", header: Self.header("s", 4), image: Self.jpeg(4), maxFps: 5, now: 1_200)
        #expect(next.type == "frame.accepted")
        let gif = ingest.ingest(sessionId: "s", accountId: "a", header: Self.header("s", 5), image: Data("GIF89a".utf8), maxFps: 5, now: 2_000)
        #expect(gif.type == "frame.rejected" && gif.reason?.contains("neither JPEG nor PNG") == true)
        let big = ingest.ingest(
            sessionId: "s", accountId: "a", header: Self.header("s", 6), image: Self.jpeg(6) + Data(count: 100), maxFps: 5, now: 2_000)
        #expect(big.type == "frame.rejected")
        _ = ingest.ingest(sessionId: "t", accountId: "b", header: Self.header("t", 1), image: Self.jpeg(1), maxFps: 5, now: 1_000)

        let counts = ingest.counts(accountId: "a")
        #expect((counts.accepted, counts.throttled, counts.duplicates, counts.rejected) == (2, 1, 1, 2))
        #expect(ingest.counts(accountId: "b").accepted == 1)
        #expect(ingest.counts(accountId: nil).accepted == 3)
        let stats = ingest.stats(sessionId: "s", accountId: "a")
        #expect(stats.accepted == 2 && stats.bytes == 16 && stats.gapP50 == 200 && stats.maxFps == 5)
        #expect(ingest.latest(sessionId: "s", accountId: "a")?.header.sequence == 4)
    }

    @Test("an account's latest frames are bounded together: one beyond is refused with a wait, another account is not, an end frees")
    func accountFrameMemory() throws {
        let probe = FrameIngest(maxFrameBytes: 64)
        // Session ids of one length: a frame's encoded copy names its session.
        _ = probe.ingest(sessionId: "s0", accountId: "a", header: Self.header("s0", 1), image: Self.jpeg(1), maxFps: 5, now: 0)
        let cost = try #require(probe.latest(sessionId: "s0", accountId: "a")?.heldBytes)
        let ingest = FrameIngest(maxFrameBytes: 64, maxHeldBytesPerAccount: 2 * cost)
        func send(_ session: String, _ account: String, _ marker: UInt8, at now: Timestamp = 0) -> FrameAck {
            ingest.ingest(
                sessionId: session, accountId: account, header: Self.header(session, UInt32(marker)), image: Self.jpeg(marker), maxFps: 5, now: now)
        }
        #expect(send("s1", "a", 1).type == "frame.accepted")
        #expect(send("s2", "a", 2).type == "frame.accepted")
        let refused = send("s3", "a", 3)
        #expect(refused.type == "frame.rejected" && refused.retryAfterMs != nil, "\(refused)")
        #expect(refused.reason?.contains("--max-frame-memory-per-account") == true)
        #expect(send("s1", "a", 4, at: 1_000).type == "frame.accepted", "a new frame replacing a session's latest costs nothing more")
        #expect(send("t1", "b", 1).type == "frame.accepted", "another account has its own budget")
        ingest.end(sessionId: "s2", accountId: "a")
        #expect(send("s3", "a", 5, at: 2_000).type == "frame.accepted", "the ended session's frame was let go")
        #expect(ingest.held(accountId: "a").bytes > 0)
    }

    @Test("viewers start with the latest frame, get the same encoded bytes, and a slow one only the newest")
    func viewers() async {
        let ingest = FrameIngest(maxFrameBytes: 64)
        _ = ingest.ingest(sessionId: "s", accountId: "a", header: Self.header("s", 1), image: Self.jpeg(1), maxFps: 60, now: 0)
        let fast = ingest.view(sessionId: "s", accountId: "a")
        let slow = ingest.view(sessionId: "s", accountId: "a")
        var fastFrames = fast.frames.makeAsyncIterator()
        #expect(await fastFrames.next()?.header.sequence == 1, "starts with the latest frame")
        for sequence in 2...5 {
            _ = ingest.ingest(
                sessionId: "s", accountId: "a", header: Self.header("s", UInt32(sequence)), image: Self.jpeg(UInt8(sequence)), maxFps: 60,
                now: Int64(sequence) * 100)
        }
        var slowFrames = slow.frames.makeAsyncIterator()
        let newest = await slowFrames.next()
        #expect(newest?.header.sequence == 5, "drop-to-latest: the slow viewer skips to the newest")
        let wire = newest?.wire
        #expect(wire.map { Data($0.readableBytesView) } == Self.header("s", 5).encode(image: Self.jpeg(5)), "viewers get the MCF1 message")
        #expect(ingest.held(accountId: "a").viewers == 2)
        ingest.stopViewing(sessionId: "s", accountId: "a", viewer: slow.id)
        #expect(ingest.held(accountId: "a").viewers == 1)
        #expect(await slowFrames.next() == nil, "a stopped viewer's stream ends")
    }

    @Test("the end of a session frees its frames and ends its viewers; late frames do not bring it back")
    func end() async {
        let ingest = FrameIngest(maxFrameBytes: 64)
        _ = ingest.ingest(sessionId: "s", accountId: "a", header: Self.header("s", 1), image: Self.jpeg(1), maxFps: 5, now: 0)
        let viewer = ingest.view(sessionId: "s", accountId: "a")
        ingest.end(sessionId: "s", accountId: "a")
        var frames = viewer.frames.makeAsyncIterator()
        while await frames.next() != nil {}
        #expect(ingest.held(accountId: "a").sessions == 0 && ingest.held(accountId: "a").bytes == 0)
        #expect(ingest.held(accountId: "a").endedSessions == 1)
        let late = ingest.ingest(sessionId: "s", accountId: "a", header: Self.header("s", 2), image: Self.jpeg(2), maxFps: 5, now: 1_000)
        #expect(late.type == "frame.rejected" && late.reason == "the session has ended")
        #expect(ingest.stats(sessionId: "s", accountId: "a").accepted == 1, "an ended session keeps its final figures")
        var afterEnd = ingest.view(sessionId: "s", accountId: "a").frames.makeAsyncIterator()
        #expect(await afterEnd.next() == nil, "viewing an ended session finishes at once")
    }

    @Test("removing an account's sessions leaves other accounts' alone")
    func removeAccount() {
        let ingest = FrameIngest(maxFrameBytes: 64)
        _ = ingest.ingest(sessionId: "a1", accountId: "a", header: Self.header("a1", 1), image: Self.jpeg(1), maxFps: 5, now: 0)
        _ = ingest.ingest(sessionId: "b1", accountId: "b", header: Self.header("b1", 1), image: Self.jpeg(1), maxFps: 5, now: 0)
        ingest.end(sessionId: "a1", accountId: "a")
        _ = ingest.ingest(sessionId: "a2", accountId: "a", header: Self.header("a2", 1), image: Self.jpeg(1), maxFps: 5, now: 0)
        ingest.removeAll(accountId: "a")
        #expect(ingest.held(accountId: "a") == StateStats.FramesHeld())
        #expect(ingest.counts(accountId: "a").accepted == 0)
        #expect(ingest.held(accountId: "b").sessions == 1 && ingest.counts(accountId: "b").accepted == 1)
    }

    @Test("only an account's last ended sessions keep their statistics; another account's are not pushed out")
    func endedBound() {
        let ingest = FrameIngest(maxFrameBytes: 64)
        _ = ingest.ingest(sessionId: "b1", accountId: "b", header: Self.header("b1", 1), image: Self.jpeg(1), maxFps: 5, now: 0)
        ingest.end(sessionId: "b1", accountId: "b")
        for index in 0..<(FrameIngest.endedCapacity + 10) {
            ingest.end(sessionId: "s\(index)", accountId: "a")
        }
        #expect(ingest.held(accountId: "a").endedSessions == FrameIngest.endedCapacity)
        #expect(ingest.held(accountId: nil).endedSessions == FrameIngest.endedCapacity + 1)
        #expect(ingest.stats(sessionId: "b1", accountId: "b").accepted == 1, "the other account's ended session keeps its figures")
        #expect(ingest.stats(sessionId: "b1", accountId: "a").accepted == 0, "a session is found only in its own account")
    }

    @Test("a session counts as watched while it has a viewer: stopped, ended or removed, it no longer does")
    func watched() {
        let ingest = FrameIngest(maxFrameBytes: 64)
        #expect(!ingest.hasViewers(sessionId: "s"))
        let first = ingest.view(sessionId: "s", accountId: "a")
        let second = ingest.view(sessionId: "s", accountId: "a")
        ingest.stopViewing(sessionId: "s", accountId: "a", viewer: first.id)
        ingest.stopViewing(sessionId: "s", accountId: "a", viewer: first.id)
        #expect(ingest.hasViewers(sessionId: "s"), "one viewer is left; stopping the same one twice counts once")
        ingest.end(sessionId: "s", accountId: "a")
        #expect(!ingest.hasViewers(sessionId: "s"))
        _ = second
        _ = ingest.view(sessionId: "t", accountId: "b")
        ingest.removeAll(accountId: "b")
        #expect(!ingest.hasViewers(sessionId: "t"))
        _ = ingest.view(sessionId: "u", accountId: "c")
        ingest.removeAll()
        #expect(!ingest.hasViewers(sessionId: "u"))
    }
}
