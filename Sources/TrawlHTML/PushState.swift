import CLibXML2

/// What libxml2's push parser, having read every byte it was given, does with the bytes fed
/// next (`trawl_html_push_state`): what the thinned feed may leave out of them.
enum PushState: Equatable {
    /// Input left unread, not in content, or SAX off: bytes go to libxml2 as they are.
    case busy
    /// Inside a raw-text element's text, up to its end tag.
    case rawText(RawTextBypass.Element)
    /// In content: a start tag is read from a fresh start, and text is only reported when it
    /// is blank (`textMatters`: html, head, before any element) or always (`textMatters` false).
    case content(textMatters: Bool)
    /// In `<title>`, whose text the scanner reads: start tags read from a fresh start.
    case title
    /// libxml2 read invalid UTF-8 and switched to Latin-1 for the rest of the document: it no
    /// longer passes bytes on as they are, so the rest goes to it as written.
    case transcoding

    init(_ context: htmlParserCtxtPtr) {
        switch trawl_html_push_state(context) {
        case 1: self = .rawText(.script)
        case 2: self = .rawText(.style)
        case 3: self = .content(textMatters: false)
        case 4: self = .content(textMatters: true)
        case 5: self = .title
        case 6: self = .transcoding
        default: self = .busy
        }
    }

    /// A plain start tag may go to libxml2 without its attributes.
    var readsStartTagsAfresh: Bool {
        switch self {
        case .content, .title: true
        case .busy, .rawText, .transcoding: false
        }
    }

    /// Whether text of `kind` fed next would only be reported, so it can be left out.
    func mayLeaveOut(_ kind: ContentText.Kind) -> Bool {
        switch (self, kind) {
        case (.content(textMatters: false), .plain), (.content, .blank): true
        default: false
        }
    }
}
