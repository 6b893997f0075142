import ZRCXTestSupport

/// The host's known picture for the viewer tests: four quadrants of distinct pure colours, so a
/// rendering in any terminal (sixel palette, 24-bit cell colours) can be checked for colours and
/// positions.
enum TestPattern {
    static let width = 640, height = 480
    static let topLeft: UInt32 = 0xFF0000, topRight: UInt32 = 0x00FF00, bottomLeft: UInt32 = 0x0000FF, bottomRight: UInt32 = 0xFFFF00
    static let colours = [topLeft, topRight, bottomLeft, bottomRight]

    /// The quadrant colour `rgb` is close to, if any.
    static func quadrant(of rgb: UInt32, tolerance: Int = 60) -> UInt32? {
        colours.first { close(rgb, $0, tolerance: tolerance) }
    }

    /// Where the pattern's colours are on an X display (sampled every 2 pixels); nil until they
    /// are all there and in place.
    static func shown(on display: String, colours: [UInt32] = colours) -> Boxes? {
        guard let shot = try? XScreenshot(display: display) else { return nil }
        var boxes = Boxes()
        for y in stride(from: 0, to: shot.height, by: 2) {
            for x in stride(from: 0, to: shot.width, by: 2) {
                let pixel = shot.pixel(x: x, y: y)
                if let colour = colours.first(where: { close(pixel, $0, tolerance: 40) }) { boxes.add(colour, x: x, y: y) }
            }
        }
        return boxes.problem(colours) == nil ? boxes : nil
    }

    static func close(_ rgb: UInt32, _ colour: UInt32, tolerance: Int) -> Bool {
        [16, 8, 0].allSatisfy { shift in abs(Int(rgb >> UInt32(shift) & 0xFF) - Int(colour >> UInt32(shift) & 0xFF)) <= tolerance }
    }

    /// Where each colour was seen on a grid of samples (columns × rows): its bounding box.
    struct Boxes {
        var boxes: [UInt32: (minX: Int, minY: Int, maxX: Int, maxY: Int)] = [:]

        mutating func add(_ colour: UInt32, x: Int, y: Int) {
            let box = boxes[colour] ?? (x, y, x, y)
            boxes[colour] = (min(box.minX, x), min(box.minY, y), max(box.maxX, x), max(box.maxY, y))
        }

        /// The four quadrants (of `colours`: top left, top right, bottom left, bottom right) are all
        /// there and in their places (judged by the centres of their boxes: scaling blends colours
        /// along the borders); nil when so, else what is wrong.
        func problem(_ colours: [UInt32] = TestPattern.colours) -> String? {
            guard let tl = boxes[colours[0]], let tr = boxes[colours[1]], let bl = boxes[colours[2]], let br = boxes[colours[3]]
            else { return "not every quadrant colour is visible: \(boxes.keys.map { String($0, radix: 16) })" }
            func centre(_ box: (minX: Int, minY: Int, maxX: Int, maxY: Int)) -> (x: Int, y: Int) {
                ((box.minX + box.maxX) / 2, (box.minY + box.maxY) / 2)
            }
            let (a, b, c, d) = (centre(tl), centre(tr), centre(bl), centre(br))
            guard a.x < b.x, c.x < d.x, a.y < c.y, b.y < d.y, a.x < d.x, a.y < d.y else {
                return "the quadrants are out of place: \(boxes)"
            }
            return nil
        }

        /// The picture's bounds: the union of the quadrants.
        var union: (minX: Int, minY: Int, maxX: Int, maxY: Int)? {
            boxes.values.reduce(nil) { partial, box in
                guard let partial else { return box }
                return (min(partial.minX, box.minX), min(partial.minY, box.minY), max(partial.maxX, box.maxX), max(partial.maxY, box.maxY))
            }
        }
    }
}
