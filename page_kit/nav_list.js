// The sidebar's list of lessons (page_kit/navigation.py): one element holding a <nav> of plain links.
//
// Streamlit's page links cost the server one element each on every page visit (49 of them); this list is one
// element, drawn once and touched again only when the page it marks as current changes. A plain click
// navigates inside the app (the session and its settings stay): it sends the page's URL path as the "go"
// trigger, and the server switches page. A click with a modifier, a middle click, "open in new tab" or a
// copied link use the href, as for any link.

function build(parentElement, groups) {
  const nav = document.createElement("nav");
  nav.className = "nl";
  nav.setAttribute("aria-label", "Lessons");
  let list = null;
  groups.forEach(([title, pages], index) => {
    if (title) {
      const heading = document.createElement("p");
      heading.className = "nl-section";
      heading.id = "nl-section-" + index;
      heading.textContent = title;
      nav.appendChild(heading);
    }
    list = document.createElement("ul");
    if (title) list.setAttribute("aria-labelledby", "nl-section-" + index);
    for (const [path, label, icon] of pages) {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.className = "nl-link";
      link.href = path === "" ? "./" : path; // relative: the app may be served under a path prefix
      link.dataset.path = path;
      link.title = label; // the whole title where the sidebar cuts it short
      if (icon) {
        const glyph = document.createElement("span");
        glyph.className = "nl-icon";
        glyph.setAttribute("aria-hidden", "true");
        glyph.textContent = icon;
        link.appendChild(glyph);
      }
      const text = document.createElement("span");
      text.textContent = label;
      link.appendChild(text);
      item.appendChild(link);
      list.appendChild(item);
    }
    nav.appendChild(list);
  });
  parentElement.appendChild(nav);
  return nav;
}

export default function ({ parentElement, data: sent, setTriggerValue }) {
  const data = unpackElementData(sent); // element_data.py
  let nav = parentElement.querySelector(".nl");
  if (!nav || nav.__digest !== data.digest) {
    if (nav) nav.remove();
    nav = build(parentElement, data.groups);
    nav.__digest = data.digest;
  }
  nav.__go = setTriggerValue; // this run's callback; the listener below is added once
  if (!nav.__bound) {
    nav.__bound = true;
    nav.addEventListener("click", (event) => {
      const link = event.target.closest("a.nl-link");
      if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      if (link.getAttribute("aria-current") === "page") return;
      nav.__go("go", link.dataset.path);
    });
  }
  for (const link of nav.querySelectorAll("a.nl-link")) {
    const here = link.dataset.path === data.here;
    if (here !== (link.getAttribute("aria-current") === "page")) {
      if (here) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
  }
}
