/// Hosts to look at again at a given time (a delay ends, a retry falls due), earliest first:
/// a binary min-heap. Stale entries are harmless: a woken host is only reconsidered.
struct WakeQueue {
    private var heap: [(at: Double, host: String)] = []

    var isEmpty: Bool { heap.isEmpty }
    var earliest: Double? { heap.first?.at }

    mutating func push(_ host: String, at: Double) {
        heap.append((at, host))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].at < heap[parent].at else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the hosts due by `now`.
    mutating func popDue(now: Double) -> [String] {
        var due: [String] = []
        while let first = heap.first, first.at <= now {
            due.append(first.host)
            heap.swapAt(0, heap.count - 1)
            heap.removeLast()
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count, heap[left].at < heap[smallest].at { smallest = left }
                if right < heap.count, heap[right].at < heap[smallest].at { smallest = right }
                guard smallest != parent else { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return due
    }
}
