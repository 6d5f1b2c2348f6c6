/* Accessibility fixes for what the theme and its extensions render in JavaScript, where no build-time fix
   reaches (book/_ext/accessibility.py adds this file to every page, after togglebutton.js). Each fix only sets
   ARIA attributes or a button's hint; nothing is moved, loaded or restyled.

   1. Search buttons: their visible text is "Search" and a keyboard hint "Ctrl + K"; their name is "Search".
      The hint becomes aria-hidden and the shortcut is announced as the button's aria-keyshortcuts instead,
      so that the name contains all the visible label (WCAG 2.5.3, axe's label-content-name-mismatch).
   2. Colour-mode button: named "Color mode", but its icons carry titles ("Light", "Dark", "System Settings")
      that count as its visible label. The icons are decorative (aria-hidden); their tooltips stay.
   3. Solution dropdowns (sphinx-togglebutton): every button is named "Toggle hidden content" and hinted
      "Click to show". Each says what it does instead, "Show solution" / "Hide solution" (the kind of box it
      opens: solution, proof, ...), as name and as hint, and follows the box's state.
   4. Sphinx's index tables (module index, proof index) lay out a list in table cells: marked as layout
      tables, they are not announced as data tables whose cells lack headers (axe's td-has-header).
*/
(() => {
  "use strict";

  function nameSearchButtons() {
    for (const hint of document.querySelectorAll(".search-button__button .search-button__kbd-shortcut")) {
      hint.setAttribute("aria-hidden", "true");
      hint.closest("button").setAttribute("aria-keyshortcuts", "Control+K Meta+K");
    }
  }

  function quietColourModeIcons() {
    for (const button of document.querySelectorAll(".theme-switch-button")) {
      const quiet = () => {
        for (const icon of button.querySelectorAll(".theme-switch:not([aria-hidden='true'])")) {
          icon.setAttribute("aria-hidden", "true");
        }
      };
      quiet();
      if (!button.dataset.a11yQuiet) {  // Font Awesome replaces each <i> by an <svg> whenever it gets to it
        button.dataset.a11yQuiet = "true";
        new MutationObserver(quiet).observe(button, {childList: true, subtree: true});
      }
    }
  }

  // The kind of box a toggle opens, from the box's classes ("solution dropdown admonition" -> "solution").
  const KINDS = ["solution", "exercise", "proof", "hint", "note", "tip", "warning", "example"];

  function nameToggleButtons() {
    for (const button of document.querySelectorAll("button.toggle-button")) {
      const box = document.getElementById(button.dataset.target);
      if (!box || button.dataset.a11yNamed) continue;
      button.dataset.a11yNamed = "true";
      const kind = KINDS.find((k) => box.classList.contains(k)) || "content";
      const sync = () => {
        const text = (box.classList.contains("toggle-hidden") ? "Show " : "Hide ") + kind;
        if (button.dataset.toggleHint !== text) button.dataset.toggleHint = text;
        if (button.getAttribute("aria-label") !== text) button.setAttribute("aria-label", text);
      };
      sync();
      // togglebutton.js rewrites the hint on every click; put ours back (the guard above ends the loop).
      new MutationObserver(sync).observe(button, {attributes: true, attributeFilter: ["data-toggle-hint"]});
      new MutationObserver(sync).observe(box, {attributes: true, attributeFilter: ["class"]});
    }
  }

  function markLayoutTables() {
    for (const table of document.querySelectorAll("table.indextable")) {
      table.setAttribute("role", "presentation");
    }
  }

  function fixAll() {
    nameSearchButtons();
    quietColourModeIcons();
    nameToggleButtons();
    markLayoutTables();
  }

  // Once the page is parsed (togglebutton.js has added its buttons), and again once everything has loaded
  // (Font Awesome may replace the icons by SVGs in between); each fix can run twice.
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", fixAll);
  } else {
    fixAll();
  }
  window.addEventListener("load", fixAll);
})();
