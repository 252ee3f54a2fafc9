// The course website (ftd_lib/publish/site.py): fixes to the pinned themes, on every page.
(function () {
  "use strict";
  // 1. Navigation on any width. pydata-sphinx-theme 0.20 and sphinx-book-theme 1.4 each put a
  // .primary-toggle (and .secondary-toggle) button in the header, and both themes bind only
  // document.querySelector(...), the first one, which is hidden: the visible buttons did
  // nothing, so below 992 px the chapter drawer and the page contents could not be opened
  // (pydata-sphinx-theme #2451, sphinx-book-theme #988). A click on any other one clicks the
  // first, whose handler opens the drawer.
  function forwardToggles() {
    [".primary-toggle", ".secondary-toggle"].forEach(function (sel) {
      var all = document.querySelectorAll(sel);
      for (var i = 1; i < all.length; i++) {
        all[i].addEventListener("click", function (e) {
          e.preventDefault();
          e.stopPropagation();
          all[0].click();
        });
      }
    });
  }
  // 2. Wide figures: a notebook's picture, or an explorer's, opens on a click or a tap in
  // a viewer at its natural size (one pixel of the PNG to one CSS pixel: a 2,100 px triptych's
  // 12-pt labels are 22 px tall there, not the 3-9 px of a phone's or a laptop's column). The
  // viewer fills the screen and scrolls in both directions itself, so the page never scrolls
  // sideways; Close, Escape or a tap beside the picture closes it. The picture stays a link
  // to the PNG (open it in a new tab, or without this script).
  var viewer = null;
  function openViewer(img) {
    if (!viewer) {
      viewer = document.createElement("dialog");
      viewer.className = "ftd-viewer";
      viewer.setAttribute("aria-label", "the picture at full size");
      viewer.innerHTML = '<button type="button" class="ftd-viewer-close">Close</button>' +
        '<img class="ftd-viewer-image" alt="">';
      document.body.appendChild(viewer);
      viewer.querySelector("button").addEventListener("click", function () {
        viewer.close();
      });
      viewer.addEventListener("click", function (e) {
        if (e.target === viewer) { viewer.close(); }
      });
    }
    var big = viewer.querySelector("img");
    big.setAttribute("src", img.getAttribute("src"));
    big.setAttribute("alt", img.getAttribute("alt") || "");
    big.style.width = img.naturalWidth ? img.naturalWidth + "px" : "";
    viewer.showModal();
    viewer.scrollTop = 0;
    viewer.scrollLeft = 0;
  }
  function enlargeFigures() {
    var imgs = document.querySelectorAll(".cell_output img, img.ftd-static-image");
    Array.prototype.forEach.call(imgs, function (img) {
      if (img.closest("a")) { return; }
      var a = document.createElement("a");
      a.href = img.getAttribute("src");
      a.className = "ftd-enlarge";
      a.title = "open the picture at full size";
      img.parentNode.insertBefore(a, img);
      a.appendChild(img);
      a.addEventListener("click", function (e) {
        if (e.ctrlKey || e.metaKey || e.shiftKey || e.button || !window.HTMLDialogElement) {
          return;  // a new tab or window: the link itself
        }
        e.preventDefault();
        openViewer(img);
      });
    });
  }
  // 3. Search snippets from the page's text, not from its header, contents list or footer.
  // (Sphinx's searchtools.js declares `const Search`: a global binding, not a window property)
  function cleanSearchSnippets() {
    /* global Search */
    if (typeof Search === "undefined" || !Search.htmlToText || Search.ftdClean) { return; }
    var original = Search.htmlToText;
    Search.htmlToText = function (htmlString, anchor) {
      var doc = new DOMParser().parseFromString(htmlString, "text/html");
      doc.querySelectorAll(".bd-header-article, .bd-sidebar-secondary, #jb-print-docs-body, " +
        ".prev-next-area, .headerlink, .ftd-handouts, .ftd-static-explorer, script, " +
        ".math, .cell_input").forEach(function (e) { e.remove(); });
      return original.call(this, doc.documentElement.outerHTML, anchor);
    };
    Search.ftdClean = true;
  }
  // 4. Accessible names and landmarks the themes leave out (axe-core, tests/publish/
  // test_site_browser.py): the search button's name is its visible text ("Search Ctrl+K", not
  // a different aria-label), likewise a folded code cell's summary, and the sidebar's logo sits inside the navigation landmark.
  function fixNames() {
    // MyST-NB's folded code: "Show code cell source" is seen, "Toggle hidden content" heard
    document.querySelectorAll(".search-button-field[aria-label], details.hide > " +
                              "summary[aria-label]").forEach(function (b) {
      b.removeAttribute("aria-label");
    });
    // the launch menu's logos are decoration beside their words ("Binder logo Binder")
    document.querySelectorAll(".dropdown-launch-buttons img").forEach(function (img) {
      img.setAttribute("alt", "");
    });
    document.querySelectorAll(".sidebar-primary-items__start").forEach(function (e) {
      if (!e.closest("nav, [role=navigation]")) {
        e.setAttribute("role", "navigation");
        e.setAttribute("aria-label", "the course's notebooks");
      }
    });
  }
  // 5. Wide boxes: a display equation or a printed output wider than the column. The box
  // scrolls sideways (div.math, not the formula: no formula is a tab stop); where it overflows
  // it is a tab stop, so a keyboard user can scroll it with the arrow keys (axe's
  // scrollable-region-focusable), named for what it is and where ("equation 2 of 5, scrolls
  // sideways": a group, not a landmark, so the landmark list does not fill with look-alikes),
  // and its right edge is shaded (ftd-site.css, light and dark) to say there is more: a cut
  // line no longer reads as the end of the line. Checked again when the width changes.
  function markWide(box, what) {
    var wide = box.scrollWidth > box.clientWidth + 1;
    box.classList.toggle("ftd-wide", wide);
    if (wide) {
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "group");
      box.setAttribute("aria-label", what + ", scrolls sideways");
    } else if (box.classList.contains("ftd-was-wide")) {
      box.removeAttribute("tabindex");
      box.removeAttribute("role");
      box.removeAttribute("aria-label");
    }
    box.classList.toggle("ftd-was-wide", wide);
  }
  function wideBoxes() {
    var eqs = document.querySelectorAll("mjx-container[display='true']");
    Array.prototype.forEach.call(eqs, function (c, k) {
      var box = c.closest("div.math");
      if (!box) {
        box = c.parentNode.classList && c.parentNode.classList.contains("ftd-eq")
          ? c.parentNode : null;
        if (!box) {
          box = document.createElement("div");
          box.className = "ftd-eq";
          c.parentNode.insertBefore(box, c);
          box.appendChild(c);
        }
      }
      box.classList.add("ftd-eq-box");
      var no = box.querySelector(".eqno");
      markWide(box, no ? "equation " + no.textContent.trim().replace(/[#¶]/g, "")
                       : "equation " + (k + 1) + " of " + eqs.length);
    });
    var outs = document.querySelectorAll(".cell_output pre, .output pre");
    Array.prototype.forEach.call(outs, function (pre, k) {
      markWide(pre, "printed output " + (k + 1) + " of " + outs.length);
    });
  }
  function afterMath(fn) {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(fn);
    } else {
      window.addEventListener("load", function () {
        if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
          MathJax.startup.promise.then(fn);
        }
      });
    }
  }
  var resizeTimer = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () { readableFigures(); wideBoxes(); }, 150);
  });
  // 6. On a phone the page-contents drawer closes once a section is picked: the themes
  // leave it open over the section it scrolled to.
  function closeContentsOnPick() {
    document.addEventListener("click", function (e) {
      var link = e.target.closest && e.target.closest("a");
      if (!link) { return; }
      var dialog = link.closest("dialog#pst-secondary-sidebar-modal, " +
                                "#pst-secondary-sidebar-modal");
      if (dialog && typeof dialog.close === "function" && dialog.open) {
        dialog.close();
      }
    });
  }
  // 7. Figures a phone can read. A notebook figure is drawn 9-14 inches wide with its
  // smallest text at 13 pt (24 px at its natural size); a phone's column shrank it to 4.5-7 px.
  // Below PHONE px of screen, a picture whose smallest text (data-ftd-text-pt, data-ftd-dpi:
  // ftd_lib/publish/site_figures.py) would be under MIN_TEXT_PX is shown wide enough for it
  // (never wider than its natural size), in a box that scrolls sideways, named and with a
  // shaded right edge like a wide equation's, and a line under it that says to swipe it, or
  // tap it for the full-size viewer. The page itself never scrolls sideways.
  var MIN_TEXT_PX = 11;
  var PHONE = 760;
  var CUE = "\u21c6 wider than the screen: swipe the figure sideways, or tap it for full size";
  function readableFigure(img, k, n) {
    var pt = parseFloat(img.getAttribute("data-ftd-text-pt"));
    var dpi = parseFloat(img.getAttribute("data-ftd-dpi"));
    var natural = parseFloat(img.getAttribute("width")) || img.naturalWidth;
    if (!natural) {  // its size comes with the picture
      img.addEventListener("load", function () { readableFigure(img, k, n); }, {once: true});
      return;
    }
    var outer = img.closest("a.ftd-enlarge") || img;
    var box = outer.parentNode;
    if (!box.classList.contains("ftd-fig")) {
      box = document.createElement("div");
      box.className = "ftd-fig";
      outer.parentNode.insertBefore(box, outer);
      box.appendChild(outer);
    }
    var cue = box.nextElementSibling;
    if (!cue || !cue.classList.contains("ftd-fig-cue")) {
      cue = document.createElement("p");
      cue.className = "ftd-fig-cue";
      cue.textContent = CUE;
      box.parentNode.insertBefore(cue, box.nextSibling);
    }
    var textPx = pt * dpi / 72;  // at its natural size
    var column = box.clientWidth;
    var need = Math.min(natural, Math.ceil(natural * MIN_TEXT_PX / textPx));
    var wide = window.innerWidth <= PHONE && column > 0 &&
               Math.min(column, natural) * textPx / natural < MIN_TEXT_PX && need > column;
    box.classList.toggle("ftd-fig-wide", wide);
    img.style.width = wide ? need + "px" : "";
    img.style.maxWidth = wide ? "none" : "";
    cue.hidden = !wide;
    // its link (the viewer) is the tab stop inside: arrow keys scroll the box from there
    box.classList.toggle("ftd-wide", wide);
    if (wide) {
      box.setAttribute("role", "group");
      box.setAttribute("aria-label", "figure " + (k + 1) + " of " + n + ", scrolls sideways");
    } else {
      box.removeAttribute("role");
      box.removeAttribute("aria-label");
    }
  }
  function readableFigures() {
    var imgs = document.querySelectorAll("img[data-ftd-text-pt][data-ftd-dpi]");
    Array.prototype.forEach.call(imgs, function (img, k) {
      readableFigure(img, k, imgs.length);
    });
  }
  // 8. A copy button on every block of code (a code cell's source, an exercise's scaffold):
  // its text as it reads, to the clipboard; the button says "Copied" for a moment. Without the
  // clipboard API (an old browser) the code is selected, and copied where the browser allows.
  // Not on a printout, nor on a method card's pseudocode (no code to run; the button sat on
  // the end of its first line).
  function copyButtons() {
    document.querySelectorAll("div.highlight > pre").forEach(function (pre) {
      var block = pre.parentNode;
      if (block.querySelector(":scope > button.ftd-copy") || block.closest(".cell_output") ||
          block.closest(".ftd-method-card")) {
        return;
      }
      var b = document.createElement("button");
      b.type = "button";
      b.className = "ftd-copy";
      b.textContent = "Copy";
      b.addEventListener("click", function () {
        var text = pre.innerText.replace(/\n$/, "");
        var said = function (word) {
          b.textContent = word;
          setTimeout(function () { b.textContent = "Copy"; }, 2000);
        };
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(text).then(function () { said("Copied"); },
                                                   function () { said("Not copied"); });
        } else {
          var range = document.createRange();
          range.selectNodeContents(pre);
          var sel = window.getSelection();
          sel.removeAllRanges();
          sel.addRange(range);
          said(document.execCommand && document.execCommand("copy") ? "Copied" : "Selected");
        }
      });
      block.insertBefore(b, pre);
    });
  }
  cleanSearchSnippets();
  function init() {
    closeContentsOnPick();
    afterMath(wideBoxes);
    wideBoxes();
    fixNames();
    forwardToggles();
    enlargeFigures();
    readableFigures();
    copyButtons();
    cleanSearchSnippets();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
