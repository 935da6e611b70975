import Testing
import ScratchCore
@testable import ScratchX11

/// docs/ARCHITECTURE.md's scale rule, without a server.
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
        // 1920 / 10 in = 192 dpi; 1080 / (143 / 25.4) in = 191.8 dpi: snapped to 2.
        #expect(abs(s.raw - 2.0) < 0.002)
        #expect(s.factor == 2)
    }

    @Test func physicalDPIOfAnOrdinaryMonitor() {
        let s = DisplayScale.resolve(option: nil, xftDPI: nil, screenPixels: Self.fullHD,
                                     screenMillimetres: Self.monitorMM)
        #expect(s.source == .physicalDPI)
        let expected = (1920 / (531 / 25.4) + 1080 / (299 / 25.4)) / 2 / 96
        #expect(s.raw == expected)
        #expect(s.factor == 1, "0.957 snaps to 1")
    }

    @Test(arguments: [(0.9994, 1.0), (1.042, 1.0), (1.33, 1.25), (1.999, 2.0), (1.126, 1.25),
                      (1.124, 1.0), (1.5, 1.5), (2.74, 2.75), (0.8, 0.75), (0.05, 0.25)])
    func aMeasuredScaleSnapsToTheNearestQuarter(measured: Double, snapped: Double) {
        #expect(DisplayScale.snappedToQuarter(measured) == snapped)
    }

    /// Xvfb's own figures: -dpi 96 on 640x480 reports 169x127 mm (1.001); by default
    /// 640x480 at 163x122 mm (1.04); a 1.33 screen: 1280x800 at 255x159 mm.
    @Test(arguments: [(PixelSize(width: 640, height: 480), PixelSize(width: 169, height: 127), 1.0),
                      (PixelSize(width: 640, height: 480), PixelSize(width: 163, height: 122), 1.0),
                      (PixelSize(width: 1280, height: 800), PixelSize(width: 255, height: 159), 1.25)])
    func physicalScaleIsSnappedAndTheRawFigureKept(pixels: PixelSize, mm: PixelSize, factor: Double) {
        let s = DisplayScale.resolve(option: nil, xftDPI: nil, screenPixels: pixels, screenMillimetres: mm)
        #expect(s.source == .physicalDPI)
        #expect(s.factor == factor)
        let dpi = (Double(pixels.width) / (Double(mm.width) / 25.4) + Double(pixels.height) / (Double(mm.height) / 25.4)) / 2
        #expect(s.raw == dpi / 96)
        #expect(s.raw != s.factor)
        #expect(s.description.contains("measured"), "\(s)")
    }

    @Test(arguments: [("134", 134.0 / 96), ("100", 100.0 / 96)])
    func xftDPIIsNotSnapped(text: String, factor: Double) {
        let s = DisplayScale.resolve(option: nil, xftDPI: text, screenPixels: Self.fullHD, screenMillimetres: Self.monitorMM)
        #expect(s.factor == factor && s.raw == factor)
    }

    @Test func anOptionIsNotSnapped() {
        let s = DisplayScale.resolve(option: 1.1, xftDPI: nil, screenPixels: Self.fullHD, screenMillimetres: Self.monitorMM)
        #expect(s.factor == 1.1 && s.raw == 1.1)
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
