// The xorg.conf text that gives a server inputtest devices, for whoever starts the
// server: DummyXorg in the tests, a bench tool or script of its own.

/// The xorg.conf sections for inputtest devices.
public enum InputTestConfig {
    /// An `InputDevice` section per device (Driver "inputtest", its `SocketPath`, its
    /// `DeviceType`; for a touch device `TouchCount`), identified by its kind's name, and
    /// a `ServerLayout` naming `screen` and every device with `AutoAddDevices` off, so
    /// that the server adds no other input device (udev's) behind the test's back.
    /// At most one device of each kind.
    public static func xorgSections(_ devices: [(kind: InputDeviceKind, socketPath: String)], screen: String,
                                    touchCount: Int = 5) -> String {
        var text = ""
        for (kind, socketPath) in devices {
            text += """
                Section "InputDevice"
                  Identifier "\(kind.rawValue)"
                  Driver "inputtest"
                  Option "SocketPath" "\(socketPath)"
                  Option "DeviceType" "\(kind.rawValue)"
                \(kind == .touch ? "  Option \"TouchCount\" \"\(touchCount)\"\n" : "")EndSection

                """
        }
        text += """
            Section "ServerLayout"
              Identifier "layout"
              Screen "\(screen)"
            \(devices.map { "  InputDevice \"\($0.kind.rawValue)\"" }.joined(separator: "\n"))
              Option "AutoAddDevices" "off"
            EndSection

            """
        return text
    }
}
