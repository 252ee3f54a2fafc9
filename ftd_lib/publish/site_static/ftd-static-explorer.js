// Kernel-less explorers (ftd_lib/publish/static_explorers.py): each slider is an index into its
// values; the picture and readout of every grid point were drawn when the site was built.
// The slider's printed value and its aria-valuetext change at once; the picture, its alt text
// and the readout (a live region) change together, once the new picture has loaded. Until
// then (a slow link) the explorer says so: the old picture and readout are dimmed, a
// "loading" line shows beside the sliders and the box is aria-busy (ftd-site.css,
// .ftd-loading). The pictures one step away on every slider are preloaded, but only once the
// picture asked for has arrived and the page has loaded: on a slow link they would share it
// with the picture the reader waits for, and with the page's own scripts and fonts.
// A stepper has Back/Step buttons.
(function () {
  "use strict";
  function setup(box) {
    var data = JSON.parse(box.querySelector("script.ftd-static-data").textContent);
    var inputs = Array.prototype.slice.call(box.querySelectorAll("input[data-slider]"));
    var img = box.querySelector("img.ftd-static-image");
    var readout = box.querySelector(".ftd-static-readout");
    var buttons = Array.prototype.slice.call(box.querySelectorAll("button[data-step]"));
    var cue = box.querySelector(".ftd-static-loading");
    var loaded = {};
    var wanted = -1;
    function busy(on) {
      box.classList.toggle("ftd-loading", on);
      if (on) { box.setAttribute("aria-busy", "true"); } else { box.removeAttribute("aria-busy"); }
      if (cue) { cue.hidden = !on; }
    }
    function frameOf(pos) {
      var i = 0;
      pos.forEach(function (p, k) { i = i * data.sliders[k].values.length + p; });
      return i;
    }
    function positions() {
      return inputs.map(function (input) { return parseInt(input.value, 10); });
    }
    function load(src) {
      if (!loaded[src]) {
        var pic = new Image();
        loaded[src] = pic;
        pic.src = src;
      }
      return loaded[src];
    }
    function preload(pos) {
      if (document.readyState !== "complete") {  // the page's own files first
        window.addEventListener("load", function () { preload(positions()); }, {once: true});
        return;
      }
      pos.forEach(function (p, k) {
        [-1, 1].forEach(function (d) {
          var q = pos.slice();
          q[k] = p + d;
          if (q[k] >= 0 && q[k] < data.sliders[k].values.length) {
            load(data.frames[frameOf(q)].src);
          }
        });
      });
    }
    function swap(i) {
      if (i !== wanted) { return; }  // a later move won
      var f = data.frames[i];
      img.setAttribute("src", f.src);
      var link = img.closest("a.ftd-enlarge");  // ftd-site.js: the picture at full size
      if (link) { link.setAttribute("href", f.src); }
      img.setAttribute("alt", f.alt || "");
      readout.innerHTML = f.readout;
      box.setAttribute("data-shown", String(i));
      busy(false);
      preload(positions());
    }
    function show() {
      var pos = positions();
      inputs.forEach(function (input, k) {
        var s = data.sliders[k];
        var n = s.values.length;
        input.parentNode.querySelector("output").textContent = s.shown[pos[k]];
        input.setAttribute("aria-valuetext",
          s.label + " = " + s.shown[pos[k]] + " (" + (pos[k] + 1) + " of " + n + ")");
        var count = input.parentNode.querySelector(".ftd-static-count");
        if (count) { count.textContent = "(" + (pos[k] + 1) + " of " + n + ")"; }
      });
      buttons.forEach(function (b) {
        var d = parseInt(b.getAttribute("data-step"), 10);
        var p = pos[0] + d;
        b.disabled = p < 0 || p > parseInt(inputs[0].max, 10);
      });
      var i = frameOf(pos);
      wanted = i;
      box.setAttribute("data-frame", String(i));
      var pic = load(data.frames[i].src);
      if (pic.complete || img.getAttribute("src") === data.frames[i].src) {
        swap(i);
      } else {
        busy(true);
        var done = function () { swap(i); };
        pic.addEventListener("load", done, {once: true});
        pic.addEventListener("error", done, {once: true});
      }
    }
    inputs.forEach(function (input) { input.addEventListener("input", show); });
    buttons.forEach(function (b) {
      b.addEventListener("click", function () {
        var input = inputs[0];
        var p = parseInt(input.value, 10) + parseInt(b.getAttribute("data-step"), 10);
        if (p < 0 || p > parseInt(input.max, 10)) { return; }
        input.value = String(p);
        show();
      });
    });
    show();
  }
  function init() {
    Array.prototype.forEach.call(document.querySelectorAll(".ftd-static-explorer"), setup);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
