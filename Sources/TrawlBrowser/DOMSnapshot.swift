/// How a rendered document becomes HTML for the parsers: `outerHTML`, except that the content of
/// every open shadow root (nested ones too) is written inline, inside its host element, before
/// the host's own children.
///
/// Web components draw their media inside shadow roots (`<gif-card>` attaching a root that holds
/// the `<img>`), which `outerHTML` leaves out. Written inline, a shadow root's `<img>` or `<video>`
/// reads like any other element of the page: the parsers need not know shadow roots exist.
/// Closed shadow roots stay unread (the page's scripts cannot read them either).
///
/// Only elements on the way from the document's root to a shadow host are written piece by
/// piece; every other subtree is its own `outerHTML`, so a page without shadow roots costs one
/// tree walk more than `outerHTML` alone.
enum DOMSnapshot {
    /// A JavaScript function expression: `(document) => html`, the doctype included.
    static let serializer = """
        ((d) => {
          const rootElement = d.documentElement;
          const doctype = d.doctype ? '<!DOCTYPE ' + d.doctype.name + '>' : '';
          if (!rootElement) return doctype;
          const hosts = [];
          const findHosts = (root) => {
            const walker = d.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
            for (let n = walker.currentNode; n; n = walker.nextNode()) {
              if (n.shadowRoot) { hosts.push(n); findHosts(n.shadowRoot); }
            }
          };
          findHosts(rootElement);
          if (hosts.length === 0) return doctype + rootElement.outerHTML;
          const onPath = new Set();
          for (const host of hosts) {
            let n = host;
            while (n && !onPath.has(n)) {
              onPath.add(n);
              n = n.parentNode;
              if (n && n.nodeType === 11) n = n.host;
            }
          }
          const voids = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
          const rawText = new Set(['script', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'plaintext']);
          const entities = { '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;', '\\u00a0': '&nbsp;' };
          const escapeText = (s) => s.replace(/[&<>\\u00a0]/g, (c) => entities[c]);
          const escapeAttribute = (s) => s.replace(/[&"\\u00a0]/g, (c) => entities[c]);
          const children = (parent, name) => {
            let s = '';
            for (let c = parent.firstChild; c; c = c.nextSibling) s += node(c, name);
            return s;
          };
          const element = (e) => {
            const name = e.localName;
            let s = '<' + name;
            for (const a of e.attributes) s += ' ' + a.name + '="' + escapeAttribute(a.value) + '"';
            s += '>';
            if (voids.has(name)) return s;
            if (e.shadowRoot) s += children(e.shadowRoot, name);
            return s + children(e, name) + '</' + name + '>';
          };
          const node = (n, parentName) => {
            switch (n.nodeType) {
              case 1: return onPath.has(n) ? element(n) : n.outerHTML;
              case 3: return rawText.has(parentName) ? n.data : escapeText(n.data);
              case 8: return '<!--' + n.data + '-->';
              default: return '';
            }
          };
          return doctype + element(rootElement);
        })
        """

    /// Evaluated in the page: `[location.href, html]`.
    static let pageExpression = "[location.href, \(serializer)(document)]"

    /// Evaluated in a frame: its URL (an `<iframe srcdoc>` frame is at `about:srcdoc`; its relative
    /// URLs resolve against its parent's, which is its base URL and the URL its snapshot is
    /// given) and its HTML.
    static let frameExpression = "[location.href === 'about:srcdoc' ? document.baseURI : location.href, \(serializer)(document)]"
}
