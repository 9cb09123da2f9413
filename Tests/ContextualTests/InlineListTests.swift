import Testing

@testable import Contextual

@Suite("InlineList")
struct InlineListTests {
    @Test("It keeps order through appends, removals and in-place changes")
    func keepsOrder() {
        var list = InlineList<Int>()
        #expect(list.isEmpty)
        #expect(Array(list) == [])
        for value in 1...4 { list.append(value) }
        #expect(Array(list) == [1, 2, 3, 4])
        list.removeFirst { $0 == 1 }  // the inline one: the next takes its place
        #expect(Array(list) == [2, 3, 4])
        list.removeFirst { $0 == 3 }
        list.removeFirst { $0 == 42 }  // absent: nothing changes
        #expect(Array(list) == [2, 4])
        list.updateEach { $0 *= 10 }
        #expect(Array(list) == [20, 40])
        list.removeFirst { $0 == 20 }
        list.removeFirst { $0 == 40 }
        #expect(list.isEmpty)
        list.append(7)
        #expect(Array(list) == [7])
    }
}

extension InlineListTests {
    @Test("popLast() takes elements from the last to the inline first, and take() empties it")
    func popsLastFirst() {
        var list = InlineList<String>()
        #expect(list.popLast() == nil)
        for value in ["a", "b", "c"] { list.append(value) }
        #expect(list.popLast() == "c")
        #expect(list.popLast() == "b")
        list.append("d")
        #expect(Array(list) == ["a", "d"])
        #expect(list.popLast() == "d")
        #expect(list.popLast() == "a")
        #expect(list.isEmpty && list.popLast() == nil)
        list.append("e")
        let taken = list.take()
        #expect(Array(taken) == ["e"] && list.isEmpty)
    }

    @Test("It counts, indexes and walks backwards, whether it holds one element or several")
    func walksBackwards() {
        var list = InlineList<String>()
        #expect(list.count == 0)
        #expect(Array(list.reversed()) == [])
        list.append("scope")
        #expect(list.count == 1)
        #expect(list[0] == "scope")
        #expect(Array(list.reversed()) == ["scope"])
        list.append("database")
        list.append("mailer")
        #expect(list.count == 3)
        #expect(list[2] == "mailer")
        #expect(Array(list.reversed()) == ["mailer", "database", "scope"])
    }
}
