import Foundation
import Testing
import TrawlBrowser
import TrawlTesting

@Suite struct RenderDecisionTests {
    private func evidence(_ html: String, media: Int = 0) -> StaticPageEvidence {
        StaticPageEvidence(html: Data(html.utf8), mediaCount: media)
    }

    @Test func aPageWithMediaNeverNeedsABrowser() {
        let shell = evidence(#"<html><body><div id="root"></div><script src="/app.js"></script></body></html>"#, media: 1)
        #expect(RenderDecision.decide(shell) == .keepStatic)
    }

    @Test func anEmptyAppRootWithoutMediaIsRendered() {
        for root in [#"<div id="root"></div>"#, "<div id='app'>\n  </div>", #"<DIV ID="__next"></DIV>"#] {
            let page = evidence("<html><body>\(root)<script src=/a.js></script></body></html>")
            #expect(page.hasEmptyAppRoot)
            #expect(RenderDecision.decide(page) == .render)
        }
        #expect(!evidence(#"<div id="root"><p>server rendered</p></div>"#).hasEmptyAppRoot)
    }

    @Test func frameworkMarksAndScriptShellsAreScriptDriven() {
        let next = evidence(#"<html><body><div id="x">Hello</div><script id="__NEXT_DATA__" type="application/json">{}</script></body></html>"#)
        #expect(next.frameworkMarkers == ["next"])
        #expect(RenderDecision.decide(next) == .render)
        let shell = evidence("<html><body><p>Loading…</p><script>load()</script></body></html>")
        #expect(shell.scriptCount == 1)
        #expect(shell.visibleTextBytes < RenderDecision.shellTextBytes)
        #expect(RenderDecision.decide(shell) == .render)
        let noscript = evidence(
            "<html><body><noscript>Enable JavaScript</noscript><script>x()</script><p>\(String(repeating: "words ", count: 100))</p></body></html>")
        #expect(noscript.hasNoscript)
        #expect(RenderDecision.decide(noscript) == .render)
    }

    @Test func anArticleWithANoscriptOrAFrameworksMarksKeepsItsStaticResult() {
        let prose = "<p>\(String(repeating: "A paragraph of the article. ", count: 120))</p>"
        let pixel = evidence("<html><body>\(prose)<script>track()</script><noscript><img src=/pixel></noscript></body></html>")
        #expect(pixel.hasNoscript)
        #expect(pixel.visibleTextBytes >= RenderDecision.contentTextBytes)
        #expect(RenderDecision.decide(pixel) == .keepStatic)
        let rendered = evidence(#"<html><body><div id="__next">\#(prose)</div><script id="__NEXT_DATA__" type="application/json">{}</script></body></html>"#)
        #expect(rendered.frameworkMarkers == ["next"])
        #expect(RenderDecision.decide(rendered) == .keepStatic)
    }

    @Test func frameworkMarksAreReadWhereFrameworksPutThem() {
        // A bundle's URL, in any case; code that boots a framework; a framework's attributes.
        #expect(evidence(#"<SCRIPT SRC="/_NEXT/static/chunks/main.js"></SCRIPT>"#).frameworkMarkers == ["next"])
        #expect(evidence(#"<link rel="preload" href="/js/react-dom.production.min.js">"#).frameworkMarkers == ["react"])
        #expect(evidence("<script>window.__NUXT__={state:{}}</script>").frameworkMarkers == ["nuxt"])
        #expect(evidence("<script>__sveltekit_abc = {}</script>").frameworkMarkers == ["svelte"])
        #expect(
            evidence(#"<div ng-version="17.0.1"></div><p data-svelte-h="x">hi</p><main data-server-rendered="true">"#).frameworkMarkers == [
                "angular", "svelte", "vue",
            ])
        // An article about frameworks names them in its prose: that is not their mark.
        let prose = evidence("<html><body><p>How react-dom and window.__NUXT__ differ.</p><script src=/stats.js></script></body></html>")
        #expect(prose.frameworkMarkers.isEmpty)
    }

    @Test func onlyRealTagsCount() {
        // A script that writes a script tag, a commented-out one and a `<` in prose are not tags.
        let page = evidence(
            #"<html><body><!-- <script src=old.js></script> --><p>1 < 2</p><script>document.write('<script src=x.js><\/script>')</script></body></html>"#)
        #expect(page.scriptCount == 1)
        #expect(page.visibleTextBytes == 3, "1, < and 2")
        #expect(evidence("<div id=root></div><script src=/a.js></script>").hasEmptyAppRoot, "an unquoted id")
        #expect(!evidence(#"<div id="root-panel"></div>"#).hasEmptyAppRoot)
    }

    @Test(.tags(.corpus)) func noCorpusArticleWithoutMediaLooksScriptDriven() throws {
        // Real pages: news articles, blogs, wikis. None is a shell; rendering them would make
        // `--browser auto` many times slower than `never` on ordinary sites.
        var rendered: [String] = []
        for file in try Corpus.genericPages() {
            let page = StaticPageEvidence(html: try Data(contentsOf: file), mediaCount: 0)
            if RenderDecision.decide(page) == .render { rendered.append(file.lastPathComponent) }
        }
        #expect(rendered.isEmpty, "rendered: \(rendered)")
    }

    @Test func anArticleWithoutMediaOrScriptsKeepsItsStaticResult() {
        let article = evidence("<html><body><article>\(String(repeating: "Plain prose. ", count: 50))</article><script>track()</script></body></html>")
        #expect(article.visibleTextBytes > RenderDecision.shellTextBytes)
        #expect(RenderDecision.decide(article) == .keepStatic)
        #expect(RenderDecision.decide(evidence("<html><body><p>short</p></body></html>")) == .keepStatic)
    }

    @Test func memoryRendersAScriptDrivenHostDirectlyAndRechecksNowAndThen() async {
        let memory = RenderMemory(recheckEvery: 3, confirmations: 1)
        #expect(await memory.plan(for: "spa.test") == .fetchFirst)
        await memory.record(host: "spa.test", neededBrowser: true)
        #expect(await memory.plan(for: "SPA.test") == .renderDirectly)
        #expect(await memory.plan(for: "spa.test") == .renderDirectly)
        #expect(await memory.plan(for: "spa.test") == .fetchFirst)
        await memory.record(host: "spa.test", neededBrowser: true)
        #expect(await memory.plan(for: "spa.test") == .renderDirectly)
        await memory.record(host: "spa.test", neededBrowser: false)
        #expect(await memory.plan(for: "spa.test") == .fetchFirst)
        #expect(await memory.plan(for: "static.test") == .fetchFirst)
    }
}

@Suite("Render memory needs pages in a row")
struct RenderMemoryStreakTests {
    @Test func oneScriptDrivenPageAmongArticlesDoesNotSendTheHostToTheBrowser() async {
        let memory = RenderMemory(recheckEvery: 10, confirmations: 3)
        await memory.record(host: "mixed.test", neededBrowser: true)
        #expect(await memory.plan(for: "mixed.test") == .fetchFirst)
        await memory.record(host: "mixed.test", neededBrowser: true)
        await memory.record(host: "mixed.test", neededBrowser: false)  // an article: the count starts over
        await memory.record(host: "mixed.test", neededBrowser: true)
        await memory.record(host: "mixed.test", neededBrowser: true)
        #expect(await memory.plan(for: "mixed.test") == .fetchFirst)
        await memory.record(host: "mixed.test", neededBrowser: true)
        #expect(await memory.plan(for: "mixed.test") == .renderDirectly, "three in a row")
    }
}
