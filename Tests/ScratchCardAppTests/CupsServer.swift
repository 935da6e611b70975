import Foundation
@preconcurrency import Glibc
import TestRequirementTrait

/// A private CUPS server for one test: Debian's cupsd with its own configuration, spool
/// and logs in a temporary folder, listening on 127.0.0.1 at a free port, and one
/// printer on cups-pdf (printer-driver-cups-pdf) writing its PDFs into the folder.
/// cups-pdf reads a printer's settings only from /etc/cups/cups-pdf-PRINTER.conf: the
/// printer's name is unique to the test, and that one file is removed with the server.
/// Clients reach it through `CUPS_SERVER` (`environment`).
final class CupsServer: @unchecked Sendable {
    let folder: String
    let printer: String
    let port: Int
    private var process: Process?
    private let perPrinterConf: String

    static var unavailable: String? {
        Requirement.first(Requirement.root(to: "run cupsd and its cups-pdf backend"),
                          Requirement.executable("/usr/sbin/cupsd", from: "cups-daemon"),
                          Requirement.executable("/usr/sbin/lpadmin", from: "cups-client"),
                          Requirement.executable("/usr/lib/cups/backend/cups-pdf", from: "printer-driver-cups-pdf"),
                          Requirement.zbarimg, Requirement.pdftoppm)
    }

    var server: String { "127.0.0.1:\(port)" }
    var environment: [String: String] { ["CUPS_SERVER": server] }
    var outFolder: String { folder + "/out" }

    /// A free port now: the kernel's choice for a socket bound to port 0.
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Configures the server; `start()` runs it (a test may start it late).
    init(port: Int = CupsServer.freePort()) throws {
        if let why = Self.unavailable { throw CupsError(why) }
        var template = Array("/tmp/scratchcups-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CupsError("mkdtemp failed") }
        folder = String(cString: made)
        chmod(folder, 0o755)
        self.port = port
        printer = "scratchtest\(getpid())x\(UInt32.random(in: 0...UInt32.max))"
        perPrinterConf = "/etc/cups/cups-pdf-\(printer).conf"
        for sub in ["etc/ppd", "spool/tmp", "cache", "state", "log", "out"] {
            try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true)
        }
        try """
            Listen 127.0.0.1:\(port)
            LogLevel info
            WebInterface No
            Browsing No
            DefaultAuthType None
            <Location />
              Order allow,deny
              Allow all
            </Location>
            <Policy default>
              <Limit All>
                Order deny,allow
              </Limit>
            </Policy>
            """.write(toFile: folder + "/etc/cupsd.conf", atomically: false, encoding: .utf8)
        try """
            ServerRoot \(folder)/etc
            RequestRoot \(folder)/spool
            TempDir \(folder)/spool/tmp
            CacheDir \(folder)/cache
            StateDir \(folder)/state
            ServerBin /usr/lib/cups
            DataDir /usr/share/cups
            AccessLog \(folder)/log/access_log
            ErrorLog \(folder)/log/error_log
            PageLog \(folder)/log/page_log
            SystemGroup root
            """.write(toFile: folder + "/etc/cups-files.conf", atomically: false, encoding: .utf8)
        try "Out \(folder)/out\nAnonDirName \(folder)/out\nLog \(folder)/log\nUserUMask 0077\n"
            .write(toFile: perPrinterConf, atomically: false, encoding: .utf8)
    }

    deinit { stop() }

    /// Starts cupsd and, the first time, adds the printer (enabled, accepting).
    func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/cupsd")
        process.arguments = ["-f", "-c", folder + "/etc/cupsd.conf", "-s", folder + "/etc/cups-files.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        var up = false
        for _ in 0..<100 {
            if (try? tool("/usr/bin/lpstat", ["-h", server, "-r"]))?.out.contains("is running") == true { up = true; break }
            usleep(100_000)
        }
        guard up else { throw CupsError("cupsd did not start: \((try? String(contentsOfFile: folder + "/log/error_log", encoding: .utf8)) ?? "")") }
        if (try tool("/usr/bin/lpstat", ["-h", server, "-p", printer])).status != 0 {
            let added = try tool("/usr/sbin/lpadmin", ["-h", server, "-p", printer, "-E", "-v", "cups-pdf:/\(printer)",
                                                       "-P", "/usr/share/ppd/cups-pdf/CUPS-PDF_opt.ppd"])
            guard added.status == 0 else { throw CupsError("lpadmin: \(added.out)") }
        }
    }

    func stop() {
        // SIGKILL: cupsd in the foreground lingered for minutes after SIGTERM here, and a
        // test's server keeps nothing worth a clean shutdown.
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        process = nil
    }

    /// Stops the server and removes everything it had.
    func remove() {
        stop()
        unlink(perPrinterConf)
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// `cupsdisable` / `cupsenable` the printer.
    func setEnabled(_ enabled: Bool) throws {
        let result = try tool(enabled ? "/usr/sbin/cupsenable" : "/usr/sbin/cupsdisable", ["-h", server, printer])
        guard result.status == 0 else { throw CupsError("cups\(enabled ? "enable" : "disable"): \(result.out)") }
    }

    /// The PDFs cups-pdf wrote.
    var printed: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: outFolder)) ?? []).filter { $0.hasSuffix(".pdf") }.sorted()
            .map { outFolder + "/" + $0 }
    }

    /// Jobs not completed, as `lpstat -o` lists them.
    var queuedJobs: Int {
        ((try? tool("/usr/bin/lpstat", ["-h", server, "-o", printer]))?.out ?? "").split(separator: "\n").count
    }

    @discardableResult
    func tool(_ path: String, _ arguments: [String], errors: Bool = true) throws -> (status: Int32, out: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = errors ? out : FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The QR codes zbarimg reads on a PDF's first page (pdftoppm at 150 dpi).
    func qrCodes(inPDF path: String) throws -> [String] {
        let page = folder + "/page-\(UUID().uuidString)"
        guard try tool("/usr/bin/pdftoppm", ["-r", "150", "-singlefile", "-png", path, page]).status == 0 else { return [] }
        defer { unlink(page + ".png") }
        return try tool("/usr/bin/zbarimg", ["--quiet", "--raw", page + ".png"], errors: false).out.split(separator: "\n").map(String.init)
    }
}

struct CupsError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
