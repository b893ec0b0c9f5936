import Foundation

/// What lets a page settle before its whole quiet window (``BrowserConfiguration/idleProbeAfter``):
/// a script run in every frame before the page's own, which counts the work the page's scripts
/// still have scheduled, and the expression that reads the count.
///
/// The network's quiet is a proxy: a page whose requests are done may still have a timer about to
/// fetch more. The count makes the proxy exact where it can be: timeouts due within the quiet
/// window (a later one holds only a page without media, through
/// ``BrowserConfiguration/pendingTimerWait``), intervals, animation frames, messages posted in
/// the last 50 ms (schedulers such as React's run their work through `MessageChannel`), a
/// document still loading, and iframes (whose own scripts are not counted). Anything the count
/// cannot see — an `IntersectionObserver` after layout, a worker's timers — falls to the rest of
/// the rules: the page only settles early at zero, after ``BrowserConfiguration/idleProbeAfter``
/// of network quiet, with no request in flight and no worker or out-of-process frame attached.
enum ScriptActivity {
    /// The script `Page.addScriptToEvaluateOnNewDocument` installs; `window.__trawlIdle()` then
    /// returns how many things are pending (0: none), and `window.__trawlNextTimer()` the
    /// milliseconds until the next pending timeout due within `timerWait` (-1: none), for
    /// ``BrowserConfiguration/pendingTimerWait``, and `window.__trawlMedia()` whether media
    /// (``mediaSelector``) have appeared in the document or an open shadow root (a
    /// `MutationObserver`, disconnected once they have).
    static func source(quietWindow: Duration, timerWait: Duration?) -> String {
        let limit = milliseconds(quietWindow)
        let horizon = max(limit, timerWait.map(milliseconds) ?? 0)
        return """
            (() => {
              if (Object.prototype.hasOwnProperty.call(window, '__trawlIdle')) return;
              const limit = \(limit), horizon = \(horizon);
              const timers = new Set(), intervals = new Set(), frames = new Set();
              const dues = new Map();
              let messageAt = -1e9;
              const now = () => performance.now();
              const setT = window.setTimeout, clearT = window.clearTimeout;
              const setI = window.setInterval, clearI = window.clearInterval;
              const forget = (id) => { timers.delete(id); intervals.delete(id); dues.delete(id); };
              window.setTimeout = function (handler, delay, ...rest) {
                const wait = Number(delay) || 0;
                if (typeof handler !== 'function' || wait > horizon) return setT.apply(this, arguments);
                const id = setT.call(this, function () { forget(id); return handler.apply(this, arguments); }, wait, ...rest);
                if (wait <= limit) timers.add(id);
                dues.set(id, now() + wait);
                return id;
              };
              window.clearTimeout = function (id) { forget(id); return clearT.apply(this, arguments); };
              window.setInterval = function (handler, delay) {
                const id = setI.apply(this, arguments);
                if ((Number(delay) || 0) <= limit) intervals.add(id);
                return id;
              };
              window.clearInterval = function (id) { forget(id); return clearI.apply(this, arguments); };
              const raf = window.requestAnimationFrame, caf = window.cancelAnimationFrame;
              if (typeof raf === 'function') {
                window.requestAnimationFrame = function (callback) {
                  if (typeof callback !== 'function') return raf.apply(this, arguments);
                  const id = raf.call(this, function () { frames.delete(id); return callback.apply(this, arguments); });
                  frames.add(id);
                  return id;
                };
                window.cancelAnimationFrame = function (id) { frames.delete(id); return caf.apply(this, arguments); };
              }
              if (typeof MessagePort === 'function') {
                const post = MessagePort.prototype.postMessage;
                MessagePort.prototype.postMessage = function () { messageAt = now(); return post.apply(this, arguments); };
              }
              const postWindow = window.postMessage;
              window.postMessage = function () { messageAt = now(); return postWindow.apply(this, arguments); };
              Object.defineProperty(window, '__trawlIdle', {
                value: () => timers.size + intervals.size + frames.size + (now() - messageAt < 50 ? 1 : 0)
                  + (document.readyState === 'complete' ? 0 : 1) + window.frames.length,
              });
              // Media in the DOM (light or open shadow), seen as they are added: the flag the
              // probes read, so a probe never walks the document.
              let media = false;
              const selector = \(selectorLiteral);
              const observers = [];
              const look = (node) => {
                if (node.nodeType === 1 && (node.matches(selector) || node.querySelector(selector) !== null)) media = true;
              };
              const watch = (root) => {
                const observer = new MutationObserver((records) => {
                  for (const record of records) {
                    if (media) break;
                    if (record.type === 'attributes') look(record.target);
                    else for (const node of record.addedNodes) look(node);
                  }
                  if (media) for (const o of observers.splice(0)) o.disconnect();
                });
                observer.observe(root, { childList: true, subtree: true, attributes: true, attributeFilter: ['src', 'srcset'] });
                observers.push(observer);
              };
              watch(document);
              const attachShadow = Element.prototype.attachShadow;
              if (typeof attachShadow === 'function') {
                Element.prototype.attachShadow = function (init) {
                  const root = attachShadow.apply(this, arguments);
                  if (!media && init && init.mode === 'open') { look(root.host); watch(root); }
                  return root;
                };
              }
              // The document's own markup is looked at once, when first asked (the parser's
              // insertions are not all reported to an observer made before the document).
              let looked = false;
              Object.defineProperty(window, '__trawlMedia', {
                value: () => {
                  if (!media && !looked && document.readyState !== 'loading') {
                    looked = true;
                    media = document.querySelector(selector) !== null;
                  }
                  return media;
                },
              });
              Object.defineProperty(window, '__trawlNextTimer', {
                value: () => {
                  let next = Infinity;
                  for (const due of dues.values()) next = Math.min(next, due);
                  return next === Infinity ? -1 : Math.max(0, next - now());
                },
              });
            })();
            """
    }

    /// What counts as media in the DOM: a `<video>`, or an `<img>` or `<source>` of a GIF, WebP or
    /// MP4 file (a cheap look, not the parsers' reading).
    static let mediaSelector =
        #"video, img[src*=".gif" i], img[src*=".webp" i], img[srcset*=".gif" i], source[src*=".mp4" i], source[srcset*=".gif" i]"#

    /// ``mediaSelector`` as a JavaScript string literal.
    private static var selectorLiteral: String { "'" + mediaSelector.replacingOccurrences(of: "'", with: "\\'") + "'" }

    /// Whether the DOM shows media: the observer's flag, or (no observer in this document: a page
    /// that replaced the script, a document it did not reach) a look at the light DOM.
    private static var mediaExpression: String {
        "(typeof window.__trawlMedia === 'function' ? window.__trawlMedia() : document.querySelector(\(selectorLiteral)) !== null)"
    }

    /// Evaluated in the page: `[the pending count (-1 when the script is not there), whether the
    /// DOM shows media]`.
    static let probe = "[typeof window.__trawlIdle === 'function' ? window.__trawlIdle() : -1, \(mediaExpression)]"

    /// Evaluated in the page: `[milliseconds to the next pending timeout or -1, whether the DOM
    /// shows media]`.
    static let timerProbe = "[typeof window.__trawlNextTimer === 'function' ? window.__trawlNextTimer() : -1, \(mediaExpression)]"

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
