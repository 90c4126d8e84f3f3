import CollabCore
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
}
