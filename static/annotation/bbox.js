/* The bbox field: boxes drawn by dragging on an image (the item's, or an upload field's), kept in
 * the hidden input as JSON [[x, y, w, h], …] in pixels of the ORIGINAL image (its natural size),
 * as studies/protocol/types/bbox.py BboxType reads them. Keyboard: Enter draws a box in the middle,
 * arrows move the last box, Shift+arrows resize it, Delete removes it. */
(function () {
  "use strict";
  var types = window.TesseraFields = window.TesseraFields || {};
  var MIN_DRAG = 4;  // screen pixels: a shorter drag is a click, not a box

  function clamp(v, lo, hi) { return Math.max(lo, Math.min(hi, v)); }
  function percent(ratio) { return Math.round(100 * ratio) + "%"; }

  function Bbox(fs) {
    this.fs = fs;
    this.input = fs.querySelector("[data-boxes]");
    this.stage = fs.querySelector(".bbox-stage");
    this.img = fs.querySelector(".bbox-image");
    this.layer = fs.querySelector(".bbox-layer");
    this.status = fs.querySelector(".bbox-status");
    this.max = +(fs.dataset.max || 0);
    this.maxRatio = fs.dataset.maxRatio ? +fs.dataset.maxRatio : null;
    this.boxes = this.read();
    this.drag = null;
  }

  Bbox.prototype.read = function () {
    try {
      var boxes = JSON.parse(this.input.value || "[]");
      return Array.isArray(boxes) ? boxes.filter(function (b) { return Array.isArray(b) && b.length === 4; }) : [];
    } catch (err) {
      return [];
    }
  };

  Bbox.prototype.size = function () {
    return this.img.naturalWidth ? { w: this.img.naturalWidth, h: this.img.naturalHeight } : null;
  };

  /* Keep the boxes in the hidden input and tell the form (conditions, draft). */
  Bbox.prototype.save = function () {
    this.input.value = this.boxes.length ? JSON.stringify(this.boxes) : "";
    this.input.dispatchEvent(new Event("input", { bubbles: true }));
    this.render();
  };

  Bbox.prototype.ratio = function (box) {
    var size = this.size();
    return (box[2] * box[3]) / (size.w * size.h);
  };

  Bbox.prototype.render = function (preview) {
    var size = this.size();
    this.layer.innerHTML = "";
    if (!size) return;
    var self = this;
    var shown = preview ? this.placed(preview) : this.boxes;
    shown.forEach(function (box, i) {
      var el = document.createElement("div");
      el.className = "bbox-box" + (self.tooBig(box) ? " too-big" : "") + (preview && i === shown.length - 1 ? " drawing" : "");
      el.style.left = (100 * box[0] / size.w) + "%";
      el.style.top = (100 * box[1] / size.h) + "%";
      el.style.width = (100 * box[2] / size.w) + "%";
      el.style.height = (100 * box[3] / size.h) + "%";
      self.layer.appendChild(el);
    });
    this.describe(shown);
  };

  Bbox.prototype.tooBig = function (box) {
    return this.maxRatio !== null && this.ratio(box) >= this.maxRatio;
  };

  /* "The box covers 12% of the image; it must cover less than 30%." */
  Bbox.prototype.describe = function (boxes) {
    var self = this;
    var rule = this.maxRatio !== null ? "; it must cover less than " + percent(this.maxRatio) : "";
    var bad = boxes.some(function (b) { return self.tooBig(b); });
    this.status.classList.toggle("error", bad);
    if (!boxes.length) { this.status.textContent = "No box yet."; return; }
    this.status.textContent = boxes.map(function (b, i) {
      var name = boxes.length > 1 ? "Box " + (i + 1) : "The box";
      return name + " covers " + percent(self.ratio(b)) + " of the image" + rule + ".";
    }).join(" ") + (bad ? " Draw it tighter around the concept." : "");
  };

  /* The boxes with a new one placed: it replaces the only box when at most one is allowed. */
  Bbox.prototype.placed = function (box) {
    if (this.max === 1) return [box];
    if (this.max && this.boxes.length >= this.max) return this.boxes;
    return this.boxes.concat([box]);
  };

  Bbox.prototype.add = function (box) {
    if (this.max > 1 && this.boxes.length >= this.max) {
      this.status.textContent = "At most " + this.max + " boxes: clear one first.";
      return;
    }
    this.boxes = this.placed(box);
    this.save();
  };

  /* A pointer position in pixels of the original image, inside it. */
  Bbox.prototype.point = function (e) {
    var rect = this.img.getBoundingClientRect(), size = this.size();
    return {
      x: clamp((e.clientX - rect.left) / rect.width, 0, 1) * size.w,
      y: clamp((e.clientY - rect.top) / rect.height, 0, 1) * size.h,
      sx: e.clientX, sy: e.clientY
    };
  };

  function boxFrom(a, b) {
    var x = Math.round(Math.min(a.x, b.x)), y = Math.round(Math.min(a.y, b.y));
    return [x, y, Math.round(Math.max(a.x, b.x)) - x, Math.round(Math.max(a.y, b.y)) - y];
  }

  Bbox.prototype.listen = function () {
    var self = this, stage = this.stage;
    stage.addEventListener("pointerdown", function (e) {
      if (e.button !== 0 || !self.size()) return;
      e.preventDefault();
      stage.focus({ preventScroll: true });
      stage.setPointerCapture(e.pointerId);
      self.drag = self.point(e);
    });
    stage.addEventListener("pointermove", function (e) {
      if (self.drag) self.render(boxFrom(self.drag, self.point(e)));
    });
    stage.addEventListener("pointerup", function (e) {
      if (!self.drag) return;
      var start = self.drag, end = self.point(e);
      self.drag = null;
      var box = boxFrom(start, end);
      if (Math.abs(end.sx - start.sx) < MIN_DRAG || Math.abs(end.sy - start.sy) < MIN_DRAG || !box[2] || !box[3]) {
        self.render();
        return;
      }
      self.add(box);
    });
    stage.addEventListener("pointercancel", function () { self.drag = null; self.render(); });
    stage.addEventListener("keydown", function (e) { self.key(e); });
    this.fs.querySelector("[data-bbox-clear]").addEventListener("click", function () {
      self.boxes = [];
      self.save();
      stage.focus();
    });
    this.img.addEventListener("load", function () { self.render(); });
  };

  var ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

  Bbox.prototype.key = function (e) {
    var size = this.size();
    if (!size || e.ctrlKey || e.metaKey || e.altKey) return;
    var last = this.boxes[this.boxes.length - 1];
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      var w = Math.round(size.w / 5), h = Math.round(size.h / 5);
      this.add([Math.round((size.w - w) / 2), Math.round((size.h - h) / 2), w, h]);
      return;
    }
    if ((e.key === "Delete" || e.key === "Backspace") && last) {
      e.preventDefault();
      this.boxes.pop();
      this.save();
      return;
    }
    var arrow = ARROWS[e.key];
    if (!arrow || !last) return;
    e.preventDefault();
    var dx = arrow[0] * Math.max(1, Math.round(size.w / 100)), dy = arrow[1] * Math.max(1, Math.round(size.h / 100));
    var box = last.slice();
    if (e.shiftKey) {
      box[2] = clamp(box[2] + dx, 1, size.w - box[0]);
      box[3] = clamp(box[3] + dy, 1, size.h - box[1]);
    } else {
      box[0] = clamp(box[0] + dx, 0, size.w - box[2]);
      box[1] = clamp(box[1] + dy, 0, size.h - box[3]);
    }
    this.boxes[this.boxes.length - 1] = box;
    this.save();
  };

  /* Draw over another field's upload: show its image, and start afresh when it changes. */
  Bbox.prototype.follow = function (uploadFs) {
    var self = this;
    var waiting = this.fs.querySelector(".bbox-waiting");
    function show(url, keep) {
      waiting.hidden = true;
      self.stage.hidden = false;
      if (!keep) { self.boxes = []; self.save(); }
      self.img.src = url;
    }
    var preview = uploadFs.querySelector(".upload-preview");
    if (preview) show(preview.getAttribute("src"), true);
    uploadFs.addEventListener("tessera:upload", function (e) { show(e.detail.url, false); });
  };

  var states = new WeakMap();

  types.bbox = {
    init: function (fs) {
      var bbox = new Bbox(fs);
      states.set(fs, bbox);
      bbox.listen();
      if (fs.dataset.over !== "image") {
        var scope = window.TesseraScope.scopeOf(fs);
        var upload = window.TesseraScope.fieldsOf(scope).find(function (f) { return f.dataset.field === fs.dataset.over; });
        if (upload) bbox.follow(upload);
      }
      if (bbox.img.complete) bbox.render();
    },
    value: function (fs) {
      var boxes = (states.get(fs) || new Bbox(fs)).read();
      return boxes.length ? boxes.map(function (b) { return { x: b[0], y: b[1], w: b[2], h: b[3] }; }) : undefined;
    }
  };
})();
