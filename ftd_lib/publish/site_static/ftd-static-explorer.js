// Kernel-less explorers (ftd_lib/publish/static_explorers.py): each slider is an index into its
// values; the picture and readout of every grid point were drawn when the site was built.
(function () {
  "use strict";
  function setup(box) {
    var data = JSON.parse(box.querySelector("script.ftd-static-data").textContent);
    var inputs = Array.prototype.slice.call(box.querySelectorAll("input[data-slider]"));
    var img = box.querySelector("img.ftd-static-image");
    var readout = box.querySelector(".ftd-static-readout");
    function show() {
      var i = 0;
      inputs.forEach(function (input, k) {
        var p = parseInt(input.value, 10);
        i = i * data.sliders[k].values.length + p;
        input.parentNode.querySelector("output").textContent = data.sliders[k].shown[p];
      });
      var f = data.frames[i];
      img.setAttribute("src", f.src);
      readout.innerHTML = f.readout;
      box.setAttribute("data-frame", String(i));
    }
    inputs.forEach(function (input) { input.addEventListener("input", show); });
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
