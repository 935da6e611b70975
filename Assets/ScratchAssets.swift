import Foundation

/// The built-in default card, shipped as resources of this module.
public enum ScratchAssets {
    public static var coverURL: URL? { Bundle.module.url(forResource: "cover", withExtension: "png") }
    public static var prizeURL: URL? { Bundle.module.url(forResource: "prize", withExtension: "png") }
    public static var iconURL: URL? { Bundle.module.url(forResource: "icon", withExtension: "png") }
}
