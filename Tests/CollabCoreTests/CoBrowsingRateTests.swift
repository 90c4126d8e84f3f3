import CollabCore
import CollabWire
import Testing

@Suite("Co-browsing frame rate")
struct CoBrowsingRateTests {
    @Test("the rate resolves along the cascade for the platform, default 5, clamped")
    func rate() {
        #expect(CoBrowsingConfiguration.maxFps(cascade: ConfigurationCascade(global: [:]), ios: true) == 5)
        let cascade = ConfigurationCascade(
            global: [CoBrowsingConfiguration.iosMaxFpsRate: "5", CoBrowsingConfiguration.androidMaxFpsRate: "8"],
            account: [CoBrowsingConfiguration.iosMaxFpsRate: "2"])
        #expect(CoBrowsingConfiguration.maxFps(cascade: cascade, ios: true) == 2)
        #expect(CoBrowsingConfiguration.maxFps(cascade: cascade, ios: false) == 8)
        #expect(
            CoBrowsingConfiguration.maxFps(cascade: ConfigurationCascade(global: [CoBrowsingConfiguration.iosMaxFpsRate: "1000"]), ios: true) == 60)
    }

    @Test("every Apple system name runs the iOS SDK (its rate property); any other name the Android one")
    func platform() {
        for os in ["iOS", "IPADOS", "visionOS", "xrOS", "watchOS", "tvOS", "macOS", "Mac OS X"] {
            #expect(DeviceInfo(os: os).isIOS, "\(os)")
        }
        for os in ["Android", "android", "HarmonyOS", "Linux", "iOS 17"] {
            #expect(!DeviceInfo(os: os).isIOS, "\(os)")
        }
    }
}
