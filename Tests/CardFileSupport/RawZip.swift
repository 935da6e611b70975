import Foundation

/// Zip archives byte by byte, as a test needs them: any name (`..`, absolute, with a
/// backslash), duplicates, symbolic links, the encryption flag, sizes that lie, entries
/// in any order. libzip would refuse to write most of these; a card file must refuse
/// to read every one of them.
public struct RawZip {
    public struct Entry {
        public var name: [UInt8]
        public var data: [UInt8]
        /// 0 stored; 8 deflated (`data` is then taken as the deflate stream as it is).
        public var method: UInt16 = 0
        public var flags: UInt16 = 0
        /// The Unix mode in the external attributes (made on Unix); nil: none given.
        public var unixMode: UInt32? = 0o100644
        /// What the headers claim, when it is not the truth.
        public var claimedSize: UInt32?
        public var claimedCRC: UInt32?

        public init(_ name: String, _ data: [UInt8], method: UInt16 = 0) {
            self.name = Array(name.utf8)
            self.data = data
            self.method = method
        }
    }

    public var entries: [Entry]

    public init(_ entries: [Entry]) { self.entries = entries }

    /// The usual start of a card file: `mimetype`, stored, the media type.
    public static var mimetype: Entry { Entry("mimetype", Array("application/x-scratchcard".utf8)) }

    /// A card file whose deck is `json` and whose other entries are `files`.
    public static func card(json: String, files: [Entry] = []) -> RawZip {
        RawZip([mimetype, Entry("card.json", Array(json.utf8))] + files)
    }

    public var bytes: [UInt8] {
        var out: [UInt8] = [], central: [UInt8] = []
        for entry in entries {
            let offset = UInt32(out.count)
            let crc = entry.claimedCRC ?? RawZip.crc32(entry.method == 0 ? entry.data : [])
            let size = entry.claimedSize ?? UInt32(entry.data.count)
            let common: [UInt8] = le16(20) + le16(entry.flags) + le16(entry.method) + le16(0) + le16(0x5921)
                + le32(crc) + le32(UInt32(entry.data.count)) + le32(size) + le16(UInt16(entry.name.count)) + le16(0)
            out += le32(0x0403_4B50) + common + entry.name + entry.data
            let made: UInt16 = entry.unixMode == nil ? 20 : (3 << 8) | 20
            central += le32(0x0201_4B50) + le16(made) + common + le16(0) + le16(0) + le16(0)
                + le32((entry.unixMode ?? 0) << 16) + le32(offset) + entry.name
        }
        let start = UInt32(out.count)
        out += central
        out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(truncatingIfNeeded: entries.count))
            + le16(UInt16(truncatingIfNeeded: entries.count)) + le32(UInt32(central.count)) + le32(start) + le16(0)
        return out
    }

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8)] }
    private func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8 & 255), UInt8(v >> 16 & 255), UInt8(v >> 24)] }
}

/// The bad card files every command that reads one must refuse: a name, the file's
/// bytes, and what the message must contain (the entry's name, or the problem).
public enum BadCardFiles {
    static let png: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]   // a signature is enough: never decoded
    static let deck = #"{"cards": [{"prize": "prize.png"}]}"#

    public static var all: [(name: String, bytes: [UInt8], mentions: String)] {
        var list: [(String, [UInt8], String)] = []
        list.append(("not a zip", Array("just some text, not a card\n".utf8), "not a card file"))
        let good = RawZip.card(json: deck, files: [RawZip.Entry("prize.png", png)]).bytes
        list.append(("truncated", Array(good.prefix(good.count - 30)), "damaged or truncated"))
        var bomb = RawZip.Entry("bomb.bin", [0x03, 0x00], method: 8)   // an empty deflate stream...
        bomb.claimedSize = 4_000_000_000                                 // ...claiming 4 GB
        var quietBomb = RawZip.Entry("quiet.bin", [0x03, 0x00], method: 8)   // within the size limit, but not from 2 bytes
        quietBomb.claimedSize = 200_000_000
        list.append(("zip bomb within the limit", RawZip.card(json: deck, files: [RawZip.Entry("prize.png", png), quietBomb]).bytes,
                     "\"quiet.bin\" claims 200000000 bytes from 2 compressed"))
        list.append(("zip bomb", RawZip.card(json: deck, files: [RawZip.Entry("prize.png", png), bomb]).bytes, "\"bomb.bin\""))
        for name in ["../evil.png", "/etc/evil.png", "images\\evil.png"] {
            // Named by card.json, and not.
            list.append(("\(name) named", RawZip.card(json: #"{"cards": [{"prize": "\#(name.replacingOccurrences(of: "\\", with: "\\\\"))"}]}"#,
                                                       files: [RawZip.Entry(name, png)]).bytes, "evil.png"))
            list.append(("\(name) unnamed", RawZip.card(json: deck, files: [RawZip.Entry("prize.png", png), RawZip.Entry(name, png)]).bytes,
                         "evil.png"))
        }
        var link = RawZip.Entry("prize.png", Array("/etc/passwd".utf8))
        link.unixMode = 0o120777
        list.append(("symlink", RawZip.card(json: deck, files: [link]).bytes, "symbolic link"))
        var secret = RawZip.Entry("prize.png", png)
        secret.flags = 1
        list.append(("encrypted", RawZip.card(json: deck, files: [secret]).bytes, "encrypted"))
        list.append(("duplicate", RawZip.card(json: deck, files: [RawZip.Entry("prize.png", png), RawZip.Entry("prize.png", png)]).bytes,
                     "twice"))
        list.append(("no card.json", RawZip([RawZip.mimetype, RawZip.Entry("prize.png", png)]).bytes, "no card.json"))
        list.append(("broken card.json", RawZip.card(json: #"{"cards": [ {"prize": "#, files: [RawZip.Entry("prize.png", png)]).bytes,
                     "card.json: not valid JSON"))
        list.append(("missing image", RawZip.card(json: #"{"cards": [{"prize": "gone.png"}]}"#).bytes, "gone.png is not in the card file"))
        let many = (0...10_000).map { RawZip.Entry("f\($0).png", []) }
        list.append(("10,001 entries", RawZip.card(json: deck, files: many).bytes, "10003 entries"))
        list.append(("mimetype not first", RawZip([RawZip.Entry("card.json", Array(deck.utf8)), RawZip.mimetype]).bytes,
                     "first entry is not \"mimetype\""))
        return list
    }
}
