// A headless Chromium driven over the DevTools protocol through a pipe (--remote-debugging-pipe:
// commands on fd 3, replies and events on fd 4, each message ending in a NUL byte), with Node's
// built-ins only. Used by the browser test and bench/view_page_load.js.
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

// Flags that work on machines without a display, GPU or outside network; without the
// background-networking ones Chromium's own connections are refused and slow it down.
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--hide-scrollbars", "--mute-audio", "--remote-debugging-pipe"];

class Browser {
  static async launch({ width = 1400, height = 900 } = {}) {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), "wnn-view-chromium-"));
    const child = spawn("chromium", [...FLAGS, `--user-data-dir=${profile}`,
      `--window-size=${width},${height}`, "about:blank"],
    { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
    const b = new Browser(child, profile);
    const { targetInfos } = await b.send("Target.getTargets");
    const page = targetInfos.find((t) => t.type === "page");
    const { sessionId } = await b.send("Target.attachToTarget", { targetId: page.targetId, flatten: true });
    b.session = sessionId;
    await b.send("Page.enable", {}, sessionId);
    await b.send("Runtime.enable", {}, sessionId);
    return b;
  }

  constructor(child, profile) {
    this.child = child;
    this.profile = profile;
    this.next = 1;
    this.pending = new Map();
    this.listeners = [];
    this.errors = [];  // exceptions thrown by the page's scripts
    this.stderr = "";
    let buffer = Buffer.alloc(0);
    child.stdio[4].on("data", (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      let end;
      while ((end = buffer.indexOf(0)) >= 0) {
        const msg = JSON.parse(buffer.subarray(0, end).toString("utf8"));
        buffer = buffer.subarray(end + 1);
        this.dispatch(msg);
      }
    });
    child.stderr.on("data", (d) => { this.stderr = (this.stderr + d).slice(-4000); });
    child.on("exit", (code) => {
      for (const { reject } of this.pending.values()) {
        reject(new Error(`chromium exited (${code}): ${this.stderr}`));
      }
    });
  }

  dispatch(msg) {
    if (msg.id && this.pending.has(msg.id)) {
      const { resolve, reject } = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.error) reject(new Error(`${msg.error.message} (${msg.error.code})`));
      else resolve(msg.result);
      return;
    }
    if (msg.method === "Runtime.exceptionThrown") this.errors.push(msg.params.exceptionDetails);
    for (const l of this.listeners) l(msg);
  }

  send(method, params = {}, sessionId = undefined) {
    const id = this.next++;
    const msg = { id, method, params };
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdio[3].write(JSON.stringify(msg) + "\0");
    });
  }

  page(method, params) { return this.send(method, params, this.session); }

  waitFor(method, seconds = 60) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners.splice(this.listeners.indexOf(l), 1);
        reject(new Error(`no ${method} within ${seconds} s`));
      }, seconds * 1000);
      const l = (msg) => {
        if (msg.method === method && msg.sessionId === this.session) {
          clearTimeout(timer);
          this.listeners.splice(this.listeners.indexOf(l), 1);
          resolve(msg.params);
        }
      };
      this.listeners.push(l);
    });
  }

  // Opens a file and waits for its load event. Through about:blank, so that opening the same
  // page again (with another #hash) loads it anew rather than only scrolling.
  async open(file, hash = "") {
    for (const url of ["about:blank", `file://${path.resolve(file)}${hash}`]) {
      const loaded = this.waitFor("Page.loadEventFired");
      await this.page("Page.navigate", { url });
      await loaded;
    }
    this.errors = this.errors.filter(() => false);
  }

  // The value of a JavaScript expression in the page (awaited when it is a promise).
  async evaluate(expression) {
    const r = await this.page("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.exception?.description || r.exceptionDetails.text}`);
    return r.result.value;
  }

  // A real mouse click (pressed, released) at the centre of the element with this id.
  async click(id) {
    const box = await this.evaluate(`(() => { const r = document.getElementById(${JSON.stringify(id)}).getBoundingClientRect();
      return { x: r.left + r.width / 2, y: r.top + Math.min(r.height / 2, 8) }; })()`);
    for (const type of ["mouseMoved", "mousePressed", "mouseReleased"]) {
      await this.page("Input.dispatchMouseEvent", { type, x: box.x, y: box.y, button: "left", clickCount: 1 });
    }
  }

  async screenshot(file) {
    const { data } = await this.page("Page.captureScreenshot", { format: "png" });
    fs.writeFileSync(file, Buffer.from(data, "base64"));
  }

  async close() {
    try { await this.send("Browser.close"); } catch { /* already gone */ }
    await new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      const t = setTimeout(() => { this.child.kill("SIGKILL"); resolve(); }, 5000);
      this.child.on("exit", () => { clearTimeout(t); resolve(); });
    });
    fs.rmSync(this.profile, { recursive: true, force: true });
  }
}

module.exports = { Browser };
