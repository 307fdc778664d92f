/* The bbox field: boxes drawn by dragging on an image (the item's, or an upload field's), kept in
 * the hidden input as JSON [[x, y, w, h], …] in pixels of the ORIGINAL image (its natural size),
 * as studies/protocol/types/bbox.py BboxType reads them. Keyboard: Enter draws a box in the middle,
 * arrows move the last box, Shift+arrows resize it, Delete removes it.
 *
 * Two places speak: the status (neutral) says how much of the image each box covers; the field's
 * problem line (the server's error, or .bbox-problem) says what is wrong, once: a box too large, a
 * drag too short or too small to make a box (data-min-side, a share of each side), too many boxes. */
(function () {
  "use strict";
  var types = window.TesseraFields = window.TesseraFields || {};
  var MIN_DRAG = 4;  // screen pixels: a shorter drag is a click, not a box

  function clamp(v, lo, hi) { return Math.max(lo, Math.min(hi, v)); }
  function percent(ratio) { return Math.round(100 * ratio) + "%"; }
  var T = window.TesseraText;  // the page's words (page.js)

  function Bbox(fs) {
    this.fs = fs;
    this.input = fs.querySelector("[data-boxes]");
    this.stage = fs.querySelector(".bbox-stage");
    this.img = fs.querySelector(".bbox-image");
    this.layer = fs.querySelector(".bbox-layer");
    this.status = fs.querySelector(".bbox-status");
    this.problem = fs.querySelector("p.error");
    this.clear = fs.querySelector("[data-bbox-clear]");
    this.max = +(fs.dataset.max || 0);
    this.maxRatio = fs.dataset.maxRatio ? +fs.dataset.maxRatio : null;
    this.minSide = +(fs.dataset.minSide || 0);
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

  /* The ORIGINAL image's size: the file shown may be a lighter copy (srcset), so the item's image
   * names its original size (data-original-width/-height); an uploaded image is shown as it is. */
  Bbox.prototype.size = function () {
    if (!this.img.naturalWidth) return null;
    var w = +this.img.dataset.originalWidth, h = +this.img.dataset.originalHeight;
    return w && h ? { w: w, h: h } : { w: this.img.naturalWidth, h: this.img.naturalHeight };
  };

  /* The smallest box in whole pixels of the original image, as BboxType.parse computes it. */
  Bbox.prototype.least = function () {
    var size = this.size(), s = this.minSide;
    if (!size || !s) return { w: 0, h: 0 };
    return { w: Math.max(1, Math.ceil(s * size.w - 1e-9)), h: Math.max(1, Math.ceil(s * size.h - 1e-9)) };
  };

  /* Keep the boxes in the hidden input and tell the form (conditions, draft). */
  Bbox.prototype.save = function () {
    this.input.value = this.boxes.length ? JSON.stringify(this.boxes) : "";
    this.input.dispatchEvent(new Event("input", { bubbles: true }));
    this.render();
    this.say(this.tooBigText(this.boxes));
  };

  /* Show the boxes as they came (a draft, a refused form): a box too large says so, once (the
   * server's words for the same problem are replaced by the same words); another error is kept. */
  Bbox.prototype.settle = function () {
    this.render();
    var problem = this.size() && this.tooBigText(this.boxes);
    if (problem) this.say(problem);
  };

  /* The field's one problem line: a text, or none (hidden). */
  Bbox.prototype.say = function (text) {
    if (!this.problem) return;
    this.problem.textContent = text || "";
    this.problem.hidden = !text;
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
    if (!preview) this.clear.hidden = !this.boxes.length;
    shown.forEach(function (box, i) {
      var el = document.createElement("div");
      el.className = "bbox-box" + (self.tooBig(box) ? " too-big" : "") + (preview && i === shown.length - 1 ? " drawing" : "");
      el.style.left = (100 * box[0] / size.w) + "%";
      el.style.top = (100 * box[1] / size.h) + "%";
      el.style.width = (100 * box[2] / size.w) + "%";
      el.style.height = (100 * box[3] / size.h) + "%";
      self.layer.appendChild(el);
    });
    this.describe(shown, !!preview);
  };

  Bbox.prototype.tooBig = function (box) {
    return this.maxRatio !== null && this.ratio(box) >= this.maxRatio;
  };

  function boxName(boxes, i) {
    return boxes.length > 1 ? T.text("box_numbered", "Box {n}", { n: i + 1 }) : T.text("box_the", "The box");
  }

  /* The status, neutral: "The box covers 12% of the image; less than 30% is allowed." Nothing while
   * a drawn box is too large: the problem line says so, once. */
  Bbox.prototype.describe = function (boxes, drawing) {
    var self = this;
    if (!boxes.length) { this.status.textContent = T.text("box_none", "No box yet."); return; }
    if (!drawing && this.tooBigText(boxes)) { this.status.textContent = ""; return; }
    var most = this.maxRatio !== null ? percent(this.maxRatio) : null;
    this.status.textContent = boxes.map(function (b, i) {
      var values = { box: boxName(boxes, i), percent: percent(self.ratio(b)), most: most };
      return most === null ? T.text("box_covers", "{box} covers {percent} of the image.", values)
        : T.text("box_covers_rule", "{box} covers {percent} of the image; less than {most} is allowed.", values);
    }).join(" ");
  };

  /* "The box covers 68% of the image; it must cover less than 30%. …" (as the server says it), or "". */
  Bbox.prototype.tooBigText = function (boxes) {
    var self = this;
    var i = boxes.findIndex(function (b) { return self.tooBig(b); });
    if (i < 0) return "";
    return T.text("box_too_big",
      "{box} covers {percent} of the image; it must cover less than {most}. Draw it tighter around the concept.",
      { box: boxName(boxes, i), percent: percent(this.ratio(boxes[i])), most: percent(this.maxRatio) });
  };

  /* The boxes with a new one placed: it replaces the only box when at most one is allowed. */
  Bbox.prototype.placed = function (box) {
    if (this.max === 1) return [box];
    if (this.max && this.boxes.length >= this.max) return this.boxes;
    return this.boxes.concat([box]);
  };

  Bbox.prototype.add = function (box) {
    if (this.max > 1 && this.boxes.length >= this.max) {
      this.render();
      this.say(T.counted("boxes_at_most", this.max, "At most {n} box: clear it first.", "At most {n} boxes: clear one first."));
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
      var box = boxFrom(start, end), least = self.least();
      if (Math.abs(end.sx - start.sx) < MIN_DRAG && Math.abs(end.sy - start.sy) < MIN_DRAG) {
        self.render();
        self.say(T.text("box_no_drag", "No box drawn: press on the image and drag across what you mean to mark."));
        return;
      }
      if (box[2] < Math.max(1, least.w) || box[3] < Math.max(1, least.h)) {
        self.render();
        self.say(T.text("box_too_small", "That box is too small ({w}×{h} px; a box needs at least {least_w}×{least_h} px): " +
          "drag across the whole area you mean to mark.", { w: box[2], h: box[3], least_w: least.w, least_h: least.h }));
        return;
      }
      self.add(box);
    });
    stage.addEventListener("pointercancel", function () { self.drag = null; self.render(); });
    stage.addEventListener("keydown", function (e) { self.key(e); });
    this.clear.addEventListener("click", function () {
      self.boxes = [];
      self.save();
      stage.focus();
    });
    this.img.addEventListener("load", function () { self.settle(); });
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
    var box = last.slice(), least = this.least();
    if (e.shiftKey) {
      box[2] = clamp(box[2] + dx, Math.max(1, least.w), size.w - box[0]);
      box[3] = clamp(box[3] + dy, Math.max(1, least.h), size.h - box[1]);
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
      if (bbox.img.complete) bbox.settle();
    },
    value: function (fs) {
      var boxes = (states.get(fs) || new Bbox(fs)).read();
      return boxes.length ? boxes.map(function (b) { return { x: b[0], y: b[1], w: b[2], h: b[3] }; }) : undefined;
    }
  };
})();
