extension Mask {
    /// Gives the mask scratch zones: from now on the brush writes only inside them, and
    /// each has its own meter, counted from the mask as it is. `touchOrder` carries over
    /// the order in which zones took ink (a resized or resumed card); zones that hold
    /// revealed pixels and are not in it follow in index order.
    ///
    /// `carrying`: the same card's mask at another size, with the same zones: its
    /// scratched state is carried over zone by zone (each zone's pixels sampled from the
    /// same place in its bounds there, nearest), and nothing outside the zones. However
    /// the zones moved (a ticket's artwork fitted to a window of another shape), what was
    /// scratched stays in its zone and no other zone takes ink from it.
    public mutating func setZones(_ outlines: [ZoneOutline], touchOrder: [Int] = [], touchLimit: Int? = nil,
                                  carrying previous: Mask? = nil) {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        var zones = MaskZones(outlines: outlines, size: size)
        if let previous, let old = previous.zones, old.count == zones.count { carry(previous, old, into: zones) }
        for i in touchOrder where zones.outlines.indices.contains(i) && !zones.touched[i] {
            zones.touched[i] = true
            zones.touchOrder.append(i)
        }
        zones.touchLimit = touchLimit
        zones.recount(storage.bytes, width: size.width)
        self.zones = zones
        storage.lastEnd = nil
    }

    /// Rewrites the mask from `previous`'s zones (see `setZones`), every row damaged.
    private mutating func carry(_ previous: Mask, _ old: MaskZones, into zones: MaskZones) {
        let bytes = storage.bytes, width = size.width
        bytes.update(repeating: 0)
        previous.withUnsafeBytes { source in
            for i in 0..<zones.count where !old.bounds[i].isEmpty {
                let from = old.bounds[i], to = zones.bounds[i]
                let sx = Double(from.width) / Double(Swift.max(to.width, 1)), sy = Double(from.height) / Double(Swift.max(to.height, 1))
                zones.forEachSpan(of: i) { row, first, last in
                    let y = Swift.min(from.maxY - 1, from.y + Int((Double(row - to.y) + 0.5) * sy))
                    for x in first...last {
                        let sourceX = Swift.min(from.maxX - 1, from.x + Int((Double(x - to.x) + 0.5) * sx))
                        if old.zone(atX: sourceX, y: y) == i { bytes[row * width + x] = source[y * previous.size.width + sourceX] }
                    }
                }
            }
        }
        storage.recount()
        damageAll()
    }

    /// The next strokes write only where `reach` lets them (a pen's own zone: `Pens`).
    mutating func strokeOnly(_ reach: ZoneReach) {
        guard zones != nil, zones!.reach != reach else { return }
        zones!.reach = reach
        storage.lastEnd = nil
    }

    /// Lets the brush write in zone `i`, or not (a locked zone).
    public mutating func setScratchable(_ i: Int, _ scratchable: Bool) {
        guard zones != nil, zones!.scratchable[i] != scratchable else { return }
        zones!.scratchable[i] = scratchable
        // A stroke that continues the last one skips what that one wrote around its
        // start; in a zone that has just become scratchable it wrote nothing.
        storage.lastEnd = nil
    }

    /// At most `limit` zones take ink (nil: no limit).
    public mutating func setTouchLimit(_ limit: Int?) {
        guard zones != nil else { return }
        zones!.touchLimit = limit
        storage.lastEnd = nil
    }

    /// Counts zone `i` as having taken ink (a key opened it), for the touch limit.
    public mutating func markTouched(_ i: Int) {
        guard zones != nil, !zones!.touched[i] else { return }
        zones!.touched[i] = true
        zones!.touchOrder.append(i)
    }

    /// Reveals every pixel of zone `i`; returns the rectangle that changed.
    @discardableResult
    public mutating func revealZone(_ i: Int) -> PixelRect {
        guard let zones else { return .empty }
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        let storage = self.storage, width = size.width
        var changed = PixelRect.empty, revealed = zones.revealedCounts[i]
        zones.forEachSpan(of: i) { row, first, last in
            var rowChanged = false
            for x in first...last where storage.bytes[row * width + x] != 255 {
                if storage.bytes[row * width + x] < 128 { revealed += 1 }
                storage.bytes[row * width + x] = 255
                rowChanged = true
            }
            if rowChanged {
                storage.addDamage(row: row, first: first, last: last)
                changed.formUnion(PixelRect(x: first, y: row, width: last - first + 1, height: 1))
            }
        }
        if !changed.isEmpty {
            storage.damagedRows = storage.damagedRows.isEmpty ? changed.y..<changed.maxY
                : Swift.min(storage.damagedRows.lowerBound, changed.y)..<Swift.max(storage.damagedRows.upperBound, changed.maxY)
        }
        storage.revealed += revealed - zones.revealedCounts[i]
        self.zones!.revealedCounts[i] = revealed
        return changed
    }

    /// The brush over a card with zones: the stroke once per scratchable zone its reach
    /// meets (of those its pen may write in), each clipped to that zone's pixels (the brush's row plan narrowed to the
    /// zone's span), each zone's meter moved by what its part revealed.
    mutating func strokeZones<Painter: StrokePainter>(from a: Point, to b: Point, radius: Double,
                                                      painter: inout Painter) -> PixelRect {
        let reach = radius + 1
        let minX = Swift.min(a.x, b.x) - reach, maxX = Swift.max(a.x, b.x) + reach
        let minY = Swift.min(a.y, b.y) - reach, maxY = Swift.max(a.y, b.y) + reach
        // Every part starts as the whole stroke would: the same skip behind a stroke that
        // continues the last one (within a zone the last one wrote what it would have).
        let before = storage.lastEnd
        var after: (point: Point, radius: Double)?
        var changed = PixelRect.empty
        let only: Int?
        switch zones!.reach {
        case .any: only = nil
        case .only(let zone): only = zone
        case .none:
            storage.lastEnd = nil
            return .empty
        }
        for i in 0..<zones!.count where zones!.scratchable[i] && (only == nil || only == i) {
            let box = zones!.bounds[i]
            guard !box.isEmpty, Double(box.x) < maxX, Double(box.maxX) > minX,
                  Double(box.y) < maxY, Double(box.maxY) > minY else { continue }
            if !zones!.touched[i], let limit = zones!.touchLimit, zones!.touchOrder.count >= limit { continue }
            storage.lastEnd = before
            let revealedBefore = storage.revealed
            let rect = zones!.spans[i].withUnsafeBufferPointer { table in
                let clip = ZoneClip(spans: table.baseAddress!, firstRow: box.y, lastRow: box.maxY - 1)
                if zones!.touched[i] {
                    return storage.stroke(from: a, to: b, radius: radius, size: size, painter: &painter, clip: clip)
                }
                // A zone's first ink is kept as damage, never painted at once: what the
                // zone shows is chosen once it is touched, before its pixels are drawn.
                var keep = MaskOnly()
                return storage.stroke(from: a, to: b, radius: radius, size: size, painter: &keep, clip: clip)
            }
            after = storage.lastEnd
            zones!.revealedCounts[i] += storage.revealed - revealedBefore
            if !rect.isEmpty {
                changed.formUnion(rect)
                if !zones!.touched[i] {
                    zones!.touched[i] = true
                    zones!.touchOrder.append(i)
                }
            }
        }
        storage.lastEnd = after
        return changed
    }
}
