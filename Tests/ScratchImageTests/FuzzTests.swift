import CPNG
import ScratchCore
import ScratchImage
import Testing

@Suite("Decoding damaged input")
struct FuzzTests {
    /// Thousands of mutated PNGs (flipped bytes, cut tails, spliced chunks): each either
    /// decodes to a well-formed image or throws an ImageError naming the input; none
    /// crashes, hangs or allocates past the limits.
    @Test func mutatedPNGsFailCleanly() throws {
        var random = TestRandom(state: 0xF022_0001)
        let seeds = [
            try PNGFile.encode(PNGTests.sampleImage(width: 19, height: 11)),
            TestPNG.encode8(width: 5, height: 4, format: cpng_format_gray(), bytes: (0..<20).map { UInt8($0 * 12) }),
            TestPNG.header(width: 3, height: 3),
        ]
        var decoded = 0, refused = 0
        for round in 0..<3000 {
            var bytes = seeds[round % seeds.count]
            switch random.next() % 4 {
            case 0:  // flip a few bytes anywhere
                for _ in 0..<(1 + Int(random.next() % 4)) {
                    bytes[Int(random.next() % UInt64(bytes.count))] ^= UInt8(1 + random.next() % 255)
                }
            case 1:  // cut the tail
                bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
            case 2:  // scribble on the header, keeping the signature
                let i = 8 + Int(random.next() % 25)
                if i < bytes.count { bytes[i] = random.byte() }
            default:  // duplicate a slice into the middle
                let a = Int(random.next() % UInt64(bytes.count)), n = Int(random.next() % 40)
                let slice = bytes[a..<min(bytes.count, a + n)]
                bytes.insert(contentsOf: slice, at: Int(random.next() % UInt64(bytes.count)))
            }
            do {
                let image = try PNGFile.decode(bytes, name: "fuzz-\(round).png")
                #expect(image.bytes.count == image.width * image.height * 4)
                #expect(image.width <= 16384 && image.height <= 16384)
                decoded += 1
            } catch {
                #expect(error.path == "fuzz-\(round).png")
                #expect(!error.problem.isEmpty)
                refused += 1
            }
        }
        #expect(refused > 1000)
        #expect(decoded + refused == 3000)
    }
}
