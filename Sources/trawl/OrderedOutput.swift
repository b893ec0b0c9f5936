/// Prints the output of inputs resolved concurrently in input order: the input at the head
/// prints as its results arrive; later ones are held until every input before them is done.
actor OrderedOutput {
    private var head = 0
    private var held: [Int: [OutputLine]] = [:]
    private var finished: Set<Int> = []

    func write(_ lines: [OutputLine], for index: Int) {
        if index == head {
            lines.forEach { $0.write() }
        } else {
            held[index, default: []] += lines
        }
    }

    /// Input `index` has printed everything.
    func finish(_ index: Int) {
        finished.insert(index)
        while finished.contains(head) {
            finished.remove(head)
            head += 1
            held.removeValue(forKey: head)?.forEach { $0.write() }
        }
    }
}
