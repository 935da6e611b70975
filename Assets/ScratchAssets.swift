/// The program's resources, as SwiftPM's resources of this module: a development build
/// finds them in the resource bundle beside the binary (`ScratchCard_ScratchAssets.resources`),
/// an installed one in `share/scratchcard` (see `DataFolder` in the scratchcard target).
/// Nothing calls `Bundle.module`: when its bundle is missing it traps. (The built-in card
/// is no file: the program draws it at the window's size, in CardArt.)
public enum ScratchAssets {
    /// The resource bundle's folder name, beside the binary.
    public static let bundleName = "ScratchCard_ScratchAssets.resources"
}
