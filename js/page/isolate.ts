/** The log's own words on the verifier page kept in their place: right-to-left text. */
import { shown } from "../src/text/names.js";

/** Each of `pieces` (text from the log: players' names, a reason, a platform) found in the
 *  text under `root` isolated in a `<bdi>`, so that right-to-left text in it (an Arabic
 *  name, a right-to-left mark) cannot reorder the sentence around it: "علي: 7c35…" was
 *  shown as "7 :علي c35…", the seed's first digit before the name. */
export function isolate(under: Node, pieces: string[]): void {
  const wanted = [...new Set(pieces.map(shown).filter((p) => p.trim() !== ""))].sort((a, b) => b.length - a.length);
  if (!wanted.length) return;
  const walker = document.createTreeWalker(under, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let n = walker.nextNode(); n !== null; n = walker.nextNode()) texts.push(n as Text);
  for (const node of texts) {
    if (node.parentElement?.closest("bdi, option, textarea") != null) continue;
    const text = node.data;
    const parts: (Node | string)[] = [];
    let plain = 0;
    for (let i = 0; i < text.length;) {
      const hit = wanted.find((p) => text.startsWith(p, i));
      if (hit === undefined) {
        i++;
        continue;
      }
      if (i > plain) parts.push(text.slice(plain, i));
      const b = document.createElement("bdi");
      b.textContent = hit;
      parts.push(b);
      i += hit.length;
      plain = i;
    }
    if (plain === 0) continue;
    if (plain < text.length) parts.push(text.slice(plain));
    node.replaceWith(...parts);
  }
}
