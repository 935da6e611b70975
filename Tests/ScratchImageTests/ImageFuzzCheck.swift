import Foundation
@testable import ScratchImage
import ScratchCore
import Testing

/// Expects `decode` (of one form of the fuzz input `file`, under the name `name`) to give
/// a well-formed image of at most `PNGFile.maxPixels`, or to refuse it with an
/// `ImageError` naming `name` and its problem; either within 2 s. The fuzz targets' own
/// check (Fuzz/{png,jpeg,webp}/main.swift), as the image suites replay their inputs.
func expectDecodedOrRefused(_ file: URL, named name: String,
                            sourceLocation: SourceLocation = #_sourceLocation,
                            _ decode: () throws -> RGBAImage) {
    let elapsed = ContinuousClock().measure {
        do {
            let image = try decode()
            #expect(image.width >= 1 && image.height >= 1, sourceLocation: sourceLocation)
            #expect(image.width * image.height <= PNGFile.maxPixels, sourceLocation: sourceLocation)
            #expect(image.bytes.count == image.width * image.height * 4, sourceLocation: sourceLocation)
        } catch let error as ImageError {
            #expect(error.path == name && !error.problem.isEmpty, sourceLocation: sourceLocation)
        } catch {
            Issue.record(error, sourceLocation: sourceLocation)
        }
    }
    #expect(elapsed < .seconds(2), "\(file.lastPathComponent) took \(elapsed)", sourceLocation: sourceLocation)
}
