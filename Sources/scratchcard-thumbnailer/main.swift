@preconcurrency import Glibc
import CardThumbnail

// scratchcard-thumbnailer [--size N] FILE.scratchcard OUT.png: the freedesktop thumbnailer
// (share/thumbnailers/scratchcard.thumbnailer) that file managers run once a file. The
// same code as `scratchcard thumbnail` (Sources/CardThumbnail), in a program of its own
// that links only what a thumbnail needs: no X11, sound, SQLite, libpq, CUPS or libcrypto
// to load and bind at every start (BENCHMARKS.md, "Card files").

func fail(_ message: String) -> Never {
    fputs("scratchcard-thumbnailer: \(message)\n", stderr)
    exit(2)
}

do {
    switch try ThumbnailArguments.parse(CommandLine.arguments.dropFirst(), name: "scratchcard-thumbnailer",
                                        program: "scratchcard-thumbnailer") {
    case .help(let text): print(text)
    case .run(let size, let input, let output): try CardThumbnail.write(size: size, input: input, output: output)
    }
} catch let problem as ThumbnailArguments.Problem {
    fail(problem.message + "\nrun 'scratchcard-thumbnailer --help' for usage")
} catch let failure as CardThumbnail.Failure {
    fail(failure.description)
} catch {
    fail("\(error)")
}
