@preconcurrency import Glibc
import Foundation
import ScratchCore
import Threads

/// Makes cards off the window's loop: deals one, decodes its images, scales them to fill
/// the window and converts them into the framebuffer's pixels (a `ScratchCanvas`).
/// With two 4K PNGs that is a few hundred milliseconds the loop must not spend: it
/// would show nothing new and read no input meanwhile.
///
/// The loop owns the maker and calls it from its own thread only. One card at a time
/// is on its way (`isMaking`), and at most one made card waits to be shown (`spare`):
/// the next is started only once that one is taken, so memory holds one spare card,
/// never a queue of them. When a card is made, the worker writes a byte to
/// `wakeDescriptor`, which the loop polls beside the X connection; the loop then calls
/// `collect()` and the card crosses over on the loop's thread.
///
///     let maker = CardMaker(dealer: dealer, size: size, layout: layout, brush: brush)
///     maker.startDeal()                         // returns at once
///     // ... the loop polls maker.wakeDescriptor; when it is readable:
///     if case .ready = maker.collect() { let made = maker.takeSpare()! }
///
/// Draws from the deck happen on the worker, one after the other, in the order the
/// loop asked for them: a card made for a size the window no longer has is re-made
/// from the images it was dealt with, not dealt again.
public final class CardMaker {
    /// A card ready to show: as dealt, and its canvas at the window's size.
    public struct Made {
        public let card: DealtCard
        public let canvas: ScratchCanvas

        public init(card: DealtCard, canvas: ScratchCanvas) {
            self.card = card
            self.canvas = canvas
        }
    }

    /// What `collect()` found.
    public enum Collected {
        /// A card is ready: `takeSpare()` has it.
        case ready
        /// The card could not be dealt (a deck image gone missing, say); the message says why.
        case failed(String)
    }

    /// The size cards are made for: the window's, following `resize(to:)`.
    public private(set) var size: PixelSize
    /// True from `startDeal()` (or a re-make) until `collect()` takes its result.
    public private(set) var isMaking = false
    /// The card made and not yet shown, always at `size`.
    private var spare: Made?

    private var dealer: Dealer
    /// Counts `replaceDealer` calls: a card on its way from an older dealer is dropped.
    private var dealerGeneration = 0
    private var generationOnItsWay = 0
    private let layout: PixelLayout
    private let brush: Brush
    /// One thread's worth of work at a time, in order: the deck's draws keep their order.
    private let queue = DispatchQueue(label: "scratchcard.card-maker", qos: .userInitiated)
    private let handoff: Handoff

    /// - Parameters: the dealer (from now on used on the worker only), and the size,
    ///   pixel layout and brush of the canvases to make.
    public init(dealer: Dealer, size: PixelSize, layout: PixelLayout, brush: Brush) {
        self.dealer = dealer
        self.size = size
        self.layout = layout
        self.brush = brush
        handoff = Handoff()
    }

    /// The descriptor the loop polls: readable once a card (or a failure) is ready to
    /// `collect()`; -1 if the wake-up pipe could not be made (the loop then finds the
    /// card at its next wake, whatever woke it).
    public var wakeDescriptor: Int32 { handoff.readEnd }

    /// True when a card is made or on its way: `startDeal()` would do nothing.
    public var isBusy: Bool { isMaking || spare != nil }

    /// Starts dealing and making the next card on the worker; returns at once. Does
    /// nothing while a card is on its way or waiting to be shown (`isBusy`).
    public func startDeal() {
        guard !isBusy else { return }
        start(nil)
    }

    /// The window has a new size: cards are made for it from now on. A spare card made
    /// for the old size goes back to the worker to be re-made (the same card, not a new
    /// draw); one on its way is re-made when it arrives.
    public func resize(to newSize: PixelSize) {
        size = newSize
        if let old = spare, old.canvas.size != newSize {
            spare = nil
            start(old.card)
        }
    }

    /// Takes what the worker finished, if anything (without waiting); call it when
    /// `wakeDescriptor` is readable. Nil: nothing new (or a card made for an old size,
    /// now being re-made).
    public func collect() -> Collected? {
        guard let outcome = handoff.take() else { return nil }
        isMaking = false
        switch outcome {
        case .made where generationOnItsWay != dealerGeneration:
            start(nil)      // dealt by the dealer a dropped card file replaced
            return nil
        case .made(let made) where made.canvas.size != size:
            start(made.card)
            return nil
        case .made(let made):
            spare = made
            return .ready
        case .failed(let message):
            return .failed(message)
        }
    }

    /// Waits for the card on its way, then collects it as `collect()` does. For the end
    /// of the program only: the loop must never wait here while it runs.
    public func finishMaking() -> Collected? {
        while isMaking {
            handoff.waitForOutcome()
            if let collected = collect() { return collected }
        }
        return nil
    }

    /// A dropped card file: cards are dealt from `newDealer` from now on. A spare card of
    /// the old dealer is dropped; one on its way is dropped when it arrives.
    public func replaceDealer(_ newDealer: Dealer) {
        dealer = newDealer
        dealerGeneration += 1
        spare = nil
    }

    /// The made card, handed over to the caller (the loop), if one is ready.
    public func takeSpare() -> Made? {
        defer { spare = nil }
        return spare
    }

    /// Sends one job to the worker: deal a new card (nil), or re-make `card` at `size`.
    private func start(_ card: DealtCard?) {
        precondition(!isMaking, "one card on its way at a time")
        isMaking = true
        generationOnItsWay = dealerGeneration
        // Only Sendable values cross to the worker: the dealer, the card as dealt (plain
        // images), sizes and the brush. The canvas is born on the worker and comes back
        // through the handoff.
        let dealer = dealer, size = size, layout = layout, brush = brush, handoff = handoff
        queue.async {
            handoff.deliver(Self.make(card, dealer: dealer, size: size, layout: layout, brush: brush))
        }
    }

    /// The worker's job: everything that takes time, on the worker's thread.
    private static func make(_ dealt: DealtCard?, dealer: Dealer, size: PixelSize, layout: PixelLayout,
                             brush: Brush) -> Handoff.Outcome {
        do {
            let card = try dealt ?? dealer.deal()
            let canvas = try card.images.canvas(at: size, layout: layout, brush: brush)
            return .made(Made(card: card, canvas: canvas))
        } catch {
            return .failed("\(error)")
        }
    }
}

/// Where a made card crosses from the worker to the loop: one slot under a lock, and a
/// pipe to wake the loop.
///
/// `@unchecked Sendable` because a `ScratchCanvas` (a class with mutable state, not
/// Sendable) passes through it. That is safe because the canvas has one owner at a
/// time and the lock orders the hand-over:
/// - the worker creates the canvas, stores it with `deliver` and drops every reference
///   it had (the job's locals end right after);
/// - the loop takes it out with `take`, leaving the slot empty, and from then on only the
///   loop's thread touches it;
/// - the maker sends the next job only after `take` emptied the slot, so the worker never
///   writes over a card the loop has not taken (`deliver` checks).
private final class Handoff: @unchecked Sendable {
    enum Outcome {
        case made(CardMaker.Made)
        case failed(String)
    }

    let readEnd: Int32
    private let writeEnd: Int32
    private let condition = Condition()
    private var slot: Outcome?

    init() {
        let ends = wakePipe()
        readEnd = ends?.read ?? -1
        writeEnd = ends?.write ?? -1
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// The worker: the outcome goes into the slot, then a byte into the pipe wakes the loop.
    func deliver(_ outcome: Outcome) {
        condition.lock()
        precondition(slot == nil, "a made card the loop has not taken")
        slot = outcome
        condition.signal()
        condition.unlock()
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// The loop: the outcome, if the worker delivered one; the wake-up byte is drained.
    func take() -> Outcome? {
        var bytes = (UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &bytes, { read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
        condition.lock()
        defer { condition.unlock() }
        let outcome = slot
        slot = nil
        return outcome
    }

    /// The loop, at the end only: blocks until the slot holds an outcome.
    func waitForOutcome() {
        condition.lock()
        while slot == nil { condition.wait() }
        condition.unlock()
    }
}
