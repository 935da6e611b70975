import Testing
import ScratchCore
@testable import ScratchX11

/// DESIGN.md's scale rule, without a server.
@Suite struct DisplayScaleTests {
    static let fullHD = PixelSize(width: 1920, height: 1080)
    /// A 24" 16:9 monitor: about 92 dpi.
    static let monitorMM = PixelSize(width: 531, height: 299)

    @Test func optionWinsOverEverything() {
        let s = DisplayScale.resolve(option: 2.5, xftDPI: "144", screenPixels: Self.fullHD,
                                     screenMillimetres: PixelSize(width: 254, height: 143))
        #expect(s == DisplayScale(factor: 2.5, source: .option))
    }

    @Test(arguments: [("144", 1.5), ("96", 1.0), (" 192 ", 2.0), ("120.0", 1.25)])
    func xftDPIIsUsedWhenPlausible(text: String, factor: Double) {
        let s = DisplayScale.resolve(option: nil, xftDPI: text, screenPixels: Self.fullHD,
                                     screenMillimetres: Self.monitorMM)
        #expect(s == DisplayScale(factor: factor, source: .xftDPI))
    }

    @Test(arguments: ["", "abc", "0", "-96", "10", "100000", "nan", "inf"])
    func nonsenseXftDPIFallsThroughToPhysical(text: String) {
        let s = DisplayScale.resolve(option: nil, xftDPI: text, screenPixels: Self.fullHD,
                                     screenMillimetres: PixelSize(width: 254, height: 143))
        #expect(s.source == .physicalDPI)
        // 1920 / 10 in = 192 dpi; 1080 / (143 / 25.4) in = 191.8 dpi.
        #expect(abs(s.factor - 2.0) < 0.002)
    }

    @Test func physicalDPIOfAnOrdinaryMonitor() {
        let s = DisplayScale.resolve(option: nil, xftDPI: nil, screenPixels: Self.fullHD,
                                     screenMillimetres: Self.monitorMM)
        #expect(s.source == .physicalDPI)
        let expected = (1920 / (531 / 25.4) + 1080 / (299 / 25.4)) / 2 / 96
        #expect(s.factor == expected)
    }

    @Test(arguments: [PixelSize(width: 0, height: 0), PixelSize(width: 2000, height: 1000),
                      PixelSize(width: 50, height: 30)])
    func implausibleScreenSizeGivesOne(mm: PixelSize) {
        let s = DisplayScale.resolve(option: nil, xftDPI: nil, screenPixels: Self.fullHD, screenMillimetres: mm)
        #expect(s == DisplayScale(factor: 1, source: .fallback))
    }

    @Test(arguments: [0.0, -1, .nan, .infinity])
    func invalidOptionIsIgnored(option: Double) {
        let s = DisplayScale.resolve(option: option, xftDPI: "144", screenPixels: Self.fullHD,
                                     screenMillimetres: Self.monitorMM)
        #expect(s.source == .xftDPI)
    }

    @Test func sourceNames() {
        #expect(DisplayScale.Source.xftDPI.rawValue == "Xft.dpi")
        #expect(DisplayScale.Source.physicalDPI.rawValue == "screen dpi")
        #expect(DisplayScale.Source.fallback.rawValue == "default")
    }
}
