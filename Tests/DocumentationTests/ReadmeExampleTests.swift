import Testing

@Suite("README: the library example is the example program")
struct ReadmeExampleTests {
    @Test("the README's first Swift block under 'Using the library' is Examples/library-quickstart/main.swift, character for character")
    func readmeShowsTheBuiltExample() throws {
        let readme = try RepositoryFiles.text("README.md")
        let program = try RepositoryFiles.text("Examples/library-quickstart/main.swift")
        let section = try #require(readme.range(of: "## Using the library"), "README has no 'Using the library' section")
        let fence = try #require(readme.range(of: "```swift\n", range: section.upperBound..<readme.endIndex))
        let end = try #require(readme.range(of: "```", range: fence.upperBound..<readme.endIndex))
        #expect(String(readme[fence.upperBound..<end.lowerBound]) == program)
    }
}
