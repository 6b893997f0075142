#!/usr/bin/env python3
"""Drives Debian's headless Chromium for the browser viewer's tests and benchmarks.

A line protocol on stdin/stdout: each line in is a JSON command, each line out its JSON answer
({"ok": true, ...} or {"ok": false, "error": "..."}). Input goes through the DevTools protocol
(Input.dispatchMouseEvent / dispatchKeyEvent / dispatchTouchEvent) so that every mouse button,
keys of any layout and raw multi-touch reach the page as a real user's would.

Started by the Swift tests (Tests/EndToEnd/ZRCEndToEndTests/Support/BrowserDriver.swift) with the Python
of the venv Tools/install-playwright.sh made; CHROMIUM names the browser (default
/usr/bin/chromium). No browser is ever downloaded.
"""
import base64
import json
import os
import sys
import time
import traceback

from playwright.sync_api import sync_playwright

BUTTONS = {"left": ("left", 1), "middle": ("middle", 4), "right": ("right", 2), "back": ("back", 8), "forward": ("forward", 16)}


class Driver:
    def __init__(self, playwright):
        executable = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        args = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                "--disable-backgrounding-occluded-windows", "--enable-precise-memory-info", "--js-flags=--expose-gc"]
        self.browser = playwright.chromium.launch(executable_path=executable, headless=True, args=args)
        self.context = None
        self.page = None
        self.cdp = None
        self.requests = []
        self.buttons = 0

    def op_open(self, url, width=1024, height=768, dpr=1, touch=False, origin_page=None):
        self.context = self.browser.new_context(viewport={"width": width, "height": height},
                                                device_scale_factor=dpr, has_touch=touch)
        self.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url.split("/#")[0].rstrip("/"))
        self.page = self.context.new_page()
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("console", lambda message: sys.stderr.write(f"page console: {message.text}\n"))
        self.cdp = self.context.new_cdp_session(self.page)
        self.page.goto(url)
        return {}

    def op_newTab(self, url):
        """A second tab of the same browser (the viewer's take-over)."""
        page = self.context.new_page()
        page.goto(url)
        self.other = self.page
        self.page = page
        self.cdp = self.context.new_cdp_session(page)
        return {}

    def op_otherStatus(self):
        return {"text": self.other.eval_on_selector("#status", "e => e.textContent")}

    def op_waitFor(self, expression, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.page.evaluate(expression)
            if value:
                return {"value": value}
            time.sleep(0.05)
        raise TimeoutError(f"not true within {timeout} s: {expression}")

    def op_eval(self, expression):
        return {"value": self.page.evaluate(expression)}

    def op_canvas(self):
        """The canvas's backing pixels (RGBA, base64) and where it sits."""
        value = self.page.evaluate("""() => {
            const c = document.getElementById('screen');
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            let s = '';
            for (let i = 0; i < d.length; i += 32768) s += String.fromCharCode.apply(null, d.subarray(i, i + 32768));
            const r = c.getBoundingClientRect();
            return { width: c.width, height: c.height, rgba: btoa(s), left: r.left, top: r.top, cssWidth: r.width, cssHeight: r.height,
                     version: window.zrcDrawn?.version ?? 0 };
        }""")
        return value

    def op_geometry(self):
        return self.page.evaluate("""() => {
            const c = document.getElementById('screen'), r = c.getBoundingClientRect(), v = window.zrcViewer.view;
            return { left: r.left, top: r.top, width: r.width, height: r.height,
                     screenWidth: v.screen?.width ?? 0, screenHeight: v.screen?.height ?? 0, dpr: window.devicePixelRatio };
        }""")

    def mouse(self, kind, x, y, button="none", buttons=0, clicks=0):
        self.cdp.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": button, "buttons": buttons,
                                                   "clickCount": clicks, "pointerType": "mouse"})

    def op_mouse(self, action, x, y, button="left"):
        name, bit = BUTTONS[button]
        if action in ("down", "click"):
            self.mouse("mouseMoved", x, y, buttons=self.buttons)
            self.buttons |= bit
            self.mouse("mousePressed", x, y, name, self.buttons, 1)
        if action in ("up", "click"):
            self.buttons &= ~bit
            self.mouse("mouseReleased", x, y, name, self.buttons, 1)
        if action == "move":
            self.mouse("mouseMoved", x, y, buttons=self.buttons)
        return {}

    def op_wheel(self, x, y, dx=0, dy=0, ctrl=False):
        self.cdp.send("Input.dispatchMouseEvent", {"type": "mouseWheel", "x": x, "y": y, "deltaX": dx, "deltaY": dy,
                                                   "modifiers": 2 if ctrl else 0, "pointerType": "mouse"})
        return {}

    def op_key(self, type, key, code="", text=None, modifiers=0, keyCode=0, location=0):
        """One DevTools key event: type keyDown, rawKeyDown, keyUp or char."""
        params = {"type": type, "key": key, "code": code, "modifiers": modifiers, "windowsVirtualKeyCode": keyCode,
                  "nativeVirtualKeyCode": keyCode, "location": location}
        if text is not None:
            params["text"] = text
            params["unmodifiedText"] = text
        self.cdp.send("Input.dispatchKeyEvent", params)
        return {}

    def op_insertText(self, text):
        """What an input method commits (compositionend, then input)."""
        self.cdp.send("Input.imeSetComposition", {"text": text, "selectionStart": len(text), "selectionEnd": len(text)})
        self.cdp.send("Input.insertText", {"text": text})
        return {}

    def op_touch(self, type, points):
        self.cdp.send("Input.dispatchTouchEvent", {"type": type, "touchPoints": [
            {"x": p["x"], "y": p["y"], "id": p.get("id", i), "radiusX": 1, "radiusY": 1, "force": 1} for i, p in enumerate(points)]})
        return {}

    def op_touches(self, events):
        """Several touch events back to back, in one command: a tap's start and end must not
        be a command's round trip apart (on a busy machine that outlasted the long-press time)."""
        for event in events:
            self.op_touch(event["type"], event["points"])
        return {}

    def op_click(self, selector):
        self.page.click(selector)
        return {}

    def op_fill(self, selector, text):
        """Types into a field as a user would (the field is focused first)."""
        self.page.fill(selector, text)
        return {}

    def op_select(self, selector, value):
        self.page.select_option(selector, value)
        return {}

    def op_press(self, key):
        """One key on whatever has the focus (keyboard-only use of the app)."""
        self.page.keyboard.press(key)
        return {}

    def op_typeText(self, text):
        self.page.keyboard.type(text)
        return {}

    def op_text(self, selector):
        return {"text": self.page.eval_on_selector(selector, "e => e.textContent")}

    def op_focused(self):
        """What has the keyboard focus: its tag, id, text and data-key."""
        return {"value": self.page.evaluate("""() => { const e = document.activeElement;
            return e ? { tag: e.tagName, id: e.id, text: e.textContent, key: e.dataset?.key ?? null } : null; }""")}

    def op_focus(self):
        self.page.focus("#keyboard-sink")
        return {}

    def op_blur(self):
        self.page.evaluate("() => window.dispatchEvent(new Event('blur'))")
        return {}

    def op_status(self):
        return {"text": self.page.eval_on_selector("#status", "e => e.textContent")}

    def op_clipboardRead(self):
        return {"text": self.page.evaluate("() => navigator.clipboard.readText()")}

    def op_paste(self, text):
        """A paste as the browser delivers one (Ctrl+V with this text on the clipboard)."""
        self.page.evaluate("t => navigator.clipboard.writeText(t)", text)
        self.op_key("rawKeyDown", "Control", "ControlLeft", modifiers=2, keyCode=17, location=1)
        self.page.keyboard.press("Control+V")
        self.op_key("keyUp", "Control", "ControlLeft", keyCode=17, location=1)
        return {}

    def op_requests(self):
        return {"urls": self.requests}

    def op_screenshot(self, path):
        self.page.screenshot(path=path)
        return {}

    def op_setInputFiles(self, selector, paths):
        """Files chosen in a file input, as a user's picker would."""
        self.page.set_input_files(selector, paths)
        return {}

    def op_expectDownload(self, expression, path, timeout=120):
        """Runs `expression` and saves the browser download it starts to `path`."""
        with self.page.expect_download(timeout=timeout * 1000) as info:
            self.page.evaluate(expression)
        download = info.value
        failure = download.failure()
        if failure is None:
            download.save_as(path)
        return {"name": download.suggested_filename, "failure": failure}

    def op_fetch(self, url, method="GET", headers=None):
        """A request from the page's context (what a script on it could do)."""
        return {"value": self.page.evaluate("""async ([u, m, h]) => {
            try { const r = await fetch(u, { method: m, headers: h || {} }); return { status: r.status }; }
            catch (e) { return { error: String(e) }; }
        }""", [url, method, headers])}

    def op_foreignFetch(self, foreign_url, target, body):
        """A page from another origin posts to the app's API (the browser holds the app's cookie)."""
        page = self.context.new_page()
        page.goto(foreign_url)
        result = page.evaluate("""async ([u, b]) => {
            try { const r = await fetch(u, { method: 'POST', body: b, credentials: 'include', mode: 'no-cors',
                                             headers: { 'Content-Type': 'text/plain' } });
                  return String(r.status); }
            catch (e) { return 'refused: ' + e; }
        }""", [target, body])
        page.close()
        return {"value": result}

    def op_foreignSocket(self, foreign_url, socket_url):
        """A page from another origin tries to open the viewer's WebSocket."""
        page = self.context.new_page()
        page.goto(foreign_url)
        result = page.evaluate("""u => new Promise(done => {
            const s = new WebSocket(u);
            s.onopen = () => done('opened');
            s.onerror = () => done('refused');
            setTimeout(() => done('timeout'), 10000);
        })""", socket_url)
        page.close()
        return {"value": result}


def main():
    with sync_playwright() as playwright:
        driver = Driver(playwright)
        print(json.dumps({"ok": True, "ready": True}), flush=True)
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                command = json.loads(line)
                op = command.pop("op")
                if op == "quit":
                    break
                result = getattr(driver, f"op_{op}")(**command) or {}
                result["ok"] = True
            except Exception as error:  # the test reads the reason
                result = {"ok": False, "error": f"{type(error).__name__}: {error}", "trace": traceback.format_exc()[-2000:]}
            print(json.dumps(result), flush=True)
        driver.browser.close()


if __name__ == "__main__":
    main()
