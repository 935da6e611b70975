// Vector drawing for the icon, with two back ends that take the same calls: cairo
// (rasterised at one size, for the PNGs) and SVG text (the scalable icon). The icon's
// geometry is written once against `VectorCanvas`, so the two cannot drift apart.
import CCairo
import Foundation
import ScratchCore

struct Point {
    var x: Double, y: Double
    init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
}

/// A closed shape to fill (or clip to).
enum Shape {
    case roundedRect(x: Double, y: Double, width: Double, height: Double, radius: Double)
    case circle(centre: Point, radius: Double)
    case polygon([Point])
}

/// What a shape is filled or a line is stroked with.
enum Paint {
    case solid(Colour)
    /// From `from` (stop 0) to `to` (stop 1).
    case linear(from: Point, to: Point, stops: [(Double, Colour)])
    /// Circles around `centre`, stop 1 at `radius`.
    case radial(centre: Point, radius: Double, stops: [(Double, Colour)])
}

/// Polylines stroked with round caps and joins.
struct Lines {
    var polylines: [[Point]]
    var width: Double
}

protocol VectorCanvas {
    mutating func fill(_ shape: Shape, with paint: Paint, opacity: Double)
    /// A ring along the shape's edge, `width` wide, centred on it.
    mutating func outline(_ shape: Shape, width: Double, with paint: Paint, opacity: Double)
    mutating func stroke(_ lines: Lines, with paint: Paint, opacity: Double)
    /// What `draw` paints, clipped to `shape`.
    mutating func clipped(to shape: Shape, _ draw: (inout Self) -> Void)
    /// `shape` filled with `paint`, with `lines` taken out of it (scratched away).
    mutating func fill(_ shape: Shape, with paint: Paint, erasing lines: Lines)
}

// MARK: - cairo

/// Draws into a cairo ARGB32 image surface of `size` x `size` pixels.
struct CairoCanvas: VectorCanvas {
    let size: Int
    private let surface: OpaquePointer
    private let cr: OpaquePointer

    init(size: Int) {
        self.size = size
        surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(size), Int32(size))
        cr = cairo_create(surface)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
    }

    /// Frees the surface; the canvas is not used after.
    func finish() {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    mutating func fill(_ shape: Shape, with paint: Paint, opacity: Double) {
        cairo_save(cr)
        path(shape)
        cairo_clip(cr)
        source(paint)
        cairo_paint_with_alpha(cr, opacity)
        cairo_restore(cr)
    }

    mutating func outline(_ shape: Shape, width: Double, with paint: Paint, opacity: Double) {
        cairo_push_group(cr)
        path(shape)
        cairo_set_line_width(cr, width)
        source(paint)
        cairo_stroke(cr)
        cairo_pop_group_to_source(cr)
        cairo_paint_with_alpha(cr, opacity)
    }

    mutating func stroke(_ lines: Lines, with paint: Paint, opacity: Double) {
        cairo_push_group(cr)
        polylines(lines)
        source(paint)
        cairo_stroke(cr)
        cairo_pop_group_to_source(cr)
        cairo_paint_with_alpha(cr, opacity)
    }

    mutating func clipped(to shape: Shape, _ draw: (inout CairoCanvas) -> Void) {
        cairo_save(cr)
        path(shape)
        cairo_clip(cr)
        draw(&self)
        cairo_restore(cr)
    }

    mutating func fill(_ shape: Shape, with paint: Paint, erasing lines: Lines) {
        cairo_push_group(cr)
        path(shape)
        source(paint)
        cairo_fill(cr)
        cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
        polylines(lines)
        cairo_stroke(cr)
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
        cairo_pop_group_to_source(cr)
        cairo_paint(cr)
    }

    /// The pixels drawn, straight alpha (cairo keeps them premultiplied, in native-endian
    /// 32-bit words 0xAARRGGBB).
    func image() -> RGBAImage {
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        var bytes = [UInt8](repeating: 0, count: size * size * 4)
        for y in 0..<size {
            let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<size {
                let word = row[x]
                let a = UInt32(word >> 24), i = (y * size + x) * 4
                func straight(_ c: UInt32) -> UInt8 { a == 0 ? 0 : UInt8(min(255, (c * 255 + a / 2) / a)) }
                bytes[i] = straight((word >> 16) & 0xFF)
                bytes[i + 1] = straight((word >> 8) & 0xFF)
                bytes[i + 2] = straight(word & 0xFF)
                bytes[i + 3] = UInt8(a)
            }
        }
        return RGBAImage(size: PixelSize(width: size, height: size), bytes: bytes)!
    }

    private func path(_ shape: Shape) {
        cairo_new_path(cr)
        switch shape {
        case let .roundedRect(x, y, w, h, r):
            cairo_new_sub_path(cr)
            cairo_arc(cr, x + w - r, y + r, r, -.pi / 2, 0)
            cairo_arc(cr, x + w - r, y + h - r, r, 0, .pi / 2)
            cairo_arc(cr, x + r, y + h - r, r, .pi / 2, .pi)
            cairo_arc(cr, x + r, y + r, r, .pi, 3 * .pi / 2)
            cairo_close_path(cr)
        case let .circle(centre, radius):
            cairo_new_sub_path(cr)
            cairo_arc(cr, centre.x, centre.y, radius, 0, 2 * .pi)
            cairo_close_path(cr)
        case let .polygon(points):
            for (n, p) in points.enumerated() {
                if n == 0 { cairo_move_to(cr, p.x, p.y) } else { cairo_line_to(cr, p.x, p.y) }
            }
            cairo_close_path(cr)
        }
    }

    private func polylines(_ lines: Lines) {
        cairo_new_path(cr)
        cairo_set_line_width(cr, lines.width)
        for line in lines.polylines {
            guard let first = line.first else { continue }
            cairo_move_to(cr, first.x, first.y)
            // A single point is a dot: a zero-length segment, which round caps draw.
            for p in line.count == 1 ? line : Array(line.dropFirst()) { cairo_line_to(cr, p.x, p.y) }
        }
    }

    private func source(_ paint: Paint) {
        switch paint {
        case .solid(let c):
            cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a)
        case let .linear(from, to, stops):
            let pattern = cairo_pattern_create_linear(from.x, from.y, to.x, to.y)
            setStops(pattern, stops)
        case let .radial(centre, radius, stops):
            let pattern = cairo_pattern_create_radial(centre.x, centre.y, 0, centre.x, centre.y, radius)
            setStops(pattern, stops)
        }
    }

    private func setStops(_ pattern: OpaquePointer?, _ stops: [(Double, Colour)]) {
        for (offset, c) in stops { cairo_pattern_add_color_stop_rgba(pattern, offset, c.r, c.g, c.b, c.a) }
        cairo_set_source(cr, pattern)
        cairo_pattern_destroy(pattern)
    }
}

// MARK: - SVG

/// Writes the same drawing as SVG 1.1 text, in a `size` x `size` view box.
struct SVGCanvas: VectorCanvas {
    let size: Int
    private var definitions: [String] = []
    private var body: [String] = []
    private var nextID = 0

    init(size: Int) { self.size = size }

    var text: String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- ScratchCard's icon, written by assetmaker from the geometry its PNGs are drawn with. -->
        <svg xmlns="http://www.w3.org/2000/svg" width="\(size)" height="\(size)" viewBox="0 0 \(size) \(size)">
        <defs>
        \(definitions.joined(separator: "\n"))
        </defs>
        \(body.joined(separator: "\n"))
        </svg>

        """
    }

    mutating func fill(_ shape: Shape, with paint: Paint, opacity: Double) {
        body.append(element(shape, attributes: "fill=\"\(reference(paint))\"\(opacityAttribute(opacity))"))
    }

    mutating func outline(_ shape: Shape, width: Double, with paint: Paint, opacity: Double) {
        body.append(element(shape, attributes: "fill=\"none\" stroke=\"\(reference(paint))\" stroke-width=\"\(n(width))\"\(opacityAttribute(opacity))"))
    }

    mutating func stroke(_ lines: Lines, with paint: Paint, opacity: Double) {
        body.append("<g\(opacityAttribute(opacity))>" + polylines(lines, stroke: reference(paint)) + "</g>")
    }

    mutating func clipped(to shape: Shape, _ draw: (inout SVGCanvas) -> Void) {
        let id = newID("clip")
        definitions.append("<clipPath id=\"\(id)\">\(element(shape, attributes: ""))</clipPath>")
        body.append("<g clip-path=\"url(#\(id))\">")
        draw(&self)
        body.append("</g>")
    }

    mutating func fill(_ shape: Shape, with paint: Paint, erasing lines: Lines) {
        let id = newID("scratched")
        definitions.append("<mask id=\"\(id)\" maskUnits=\"userSpaceOnUse\" x=\"0\" y=\"0\" width=\"\(size)\" height=\"\(size)\">"
            + "<rect width=\"\(size)\" height=\"\(size)\" fill=\"#fff\"/>" + polylines(lines, stroke: "#000") + "</mask>")
        body.append(element(shape, attributes: "fill=\"\(reference(paint))\" mask=\"url(#\(id))\""))
    }

    private mutating func newID(_ stem: String) -> String {
        nextID += 1
        return "\(stem)\(nextID)"
    }

    /// A colour, or a gradient defined once and referred to.
    private mutating func reference(_ paint: Paint) -> String {
        switch paint {
        case .solid(let c):
            return colour(c)
        case let .linear(from, to, stops):
            let id = newID("linear")
            definitions.append("<linearGradient id=\"\(id)\" gradientUnits=\"userSpaceOnUse\" x1=\"\(n(from.x))\" y1=\"\(n(from.y))\" x2=\"\(n(to.x))\" y2=\"\(n(to.y))\">"
                + stopElements(stops) + "</linearGradient>")
            return "url(#\(id))"
        case let .radial(centre, radius, stops):
            let id = newID("radial")
            definitions.append("<radialGradient id=\"\(id)\" gradientUnits=\"userSpaceOnUse\" cx=\"\(n(centre.x))\" cy=\"\(n(centre.y))\" r=\"\(n(radius))\">"
                + stopElements(stops) + "</radialGradient>")
            return "url(#\(id))"
        }
    }

    private func stopElements(_ stops: [(Double, Colour)]) -> String {
        stops.map { "<stop offset=\"\(n($0.0))\" stop-color=\"\(colour($0.1))\"\($0.1.a < 1 ? " stop-opacity=\"\(n($0.1.a))\"" : "")/>" }.joined()
    }

    private func element(_ shape: Shape, attributes: String) -> String {
        switch shape {
        case let .roundedRect(x, y, w, h, r):
            "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(w))\" height=\"\(n(h))\" rx=\"\(n(r))\" \(attributes)/>"
        case let .circle(centre, radius):
            "<circle cx=\"\(n(centre.x))\" cy=\"\(n(centre.y))\" r=\"\(n(radius))\" \(attributes)/>"
        case let .polygon(points):
            "<polygon points=\"\(points.map { "\(n($0.x)),\(n($0.y))" }.joined(separator: " "))\" \(attributes)/>"
        }
    }

    private func polylines(_ lines: Lines, stroke: String) -> String {
        lines.polylines.map { line in
            // A single point is a dot: a zero-length segment, which round caps draw.
            let points = line.count == 1 ? line + line : line
            return "<polyline points=\"\(points.map { "\(n($0.x)),\(n($0.y))" }.joined(separator: " "))\" fill=\"none\" stroke=\"\(stroke)\" "
                + "stroke-width=\"\(n(lines.width))\" stroke-linecap=\"round\" stroke-linejoin=\"round\"/>"
        }.joined()
    }

    private func opacityAttribute(_ opacity: Double) -> String { opacity < 1 ? " opacity=\"\(n(opacity))\"" : "" }

    private func colour(_ c: Colour) -> String {
        func byte(_ v: Double) -> String {
            let b = Int((min(max(v, 0), 1) * 255).rounded())
            return (b < 16 ? "0" : "") + String(b, radix: 16)
        }
        return "#" + byte(c.r) + byte(c.g) + byte(c.b)
    }

    /// A number with at most 3 decimals, no trailing zeros.
    private func n(_ v: Double) -> String {
        let rounded = (v * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
