import Foundation

/// What lets a page settle before its whole quiet window (``BrowserConfiguration/idleProbeAfter``):
/// a script run in every frame before the page's own, which counts the work the page's scripts
/// still have scheduled, and the expression that reads the count.
///
/// The network's quiet is a proxy: a page whose requests are done may still have a timer about to
/// fetch more. The count makes the proxy exact where it can be: timeouts due within the quiet
/// window (longer ones would be missed by the window too), intervals, animation frames, messages
/// posted in the last 50 ms (schedulers such as React's run their work through `MessageChannel`),
/// a document still loading, and iframes (whose own scripts are not counted). Anything the count
/// cannot see — an `IntersectionObserver` after layout, a worker's timers — falls to the rest of
/// the rules: the page only settles early at zero, after ``BrowserConfiguration/idleProbeAfter``
/// of network quiet, with no request in flight and no worker or out-of-process frame attached.
enum ScriptActivity {
    /// The script `Page.addScriptToEvaluateOnNewDocument` installs; `window.__trawlIdle()` then
    /// returns how many things are pending (0: none).
    static func source(quietWindow: Duration) -> String {
        let limit = Int(quietWindow.components.seconds * 1000 + quietWindow.components.attoseconds / 1_000_000_000_000_000)
        return """
            (() => {
              if (Object.prototype.hasOwnProperty.call(window, '__trawlIdle')) return;
              const limit = \(limit);
              const timers = new Set(), intervals = new Set(), frames = new Set();
              let messageAt = -1e9;
              const now = () => performance.now();
              const setT = window.setTimeout, clearT = window.clearTimeout;
              const setI = window.setInterval, clearI = window.clearInterval;
              const forget = (id) => { timers.delete(id); intervals.delete(id); };
              window.setTimeout = function (handler, delay, ...rest) {
                const wait = Number(delay) || 0;
                if (typeof handler !== 'function' || wait > limit) return setT.apply(this, arguments);
                const id = setT.call(this, function () { timers.delete(id); return handler.apply(this, arguments); }, wait, ...rest);
                timers.add(id);
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
            })();
            """
    }

    /// Evaluated in the page: the pending count, or -1 when the script is not there (a page
    /// that replaced it, a document it did not reach).
    static let probe = "typeof window.__trawlIdle === 'function' ? window.__trawlIdle() : -1"
}
