// Builds dist/verify.html: page.ts and the verifier it imports bundled by esbuild into one
// ES module script (src/protocol/crypto.ts awaits at its top level), put inline with the stylesheet into template.html. One file, nothing to fetch.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// src/protocol/crypto.ts falls back to node:crypto where there is no global WebCrypto (never in a
// browser): the page gets a module that says so instead of a request for it
const noNode = {
  name: "no-node",
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (a) => ({ path: a.path, namespace: "no-node" }));
    b.onLoad({ filter: /.*/, namespace: "no-node" }, () => ({
      contents: "throw new Error('this browser has no WebCrypto (crypto.subtle)');", loader: "js",
    }));
  },
};
const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "dist", "verify.html");
const result = await build({
  entryPoints: [join(here, "page.ts")],
  bundle: true, format: "esm", platform: "browser", target: "es2022",
  minify: true, legalComments: "none", write: false, charset: "utf8", plugins: [noNode],
});
// "</script" inside the script would end it early; esbuild escapes it, and we check
const script = result.outputFiles[0].text;
if (/<\/script/i.test(script)) throw new Error("the bundle holds </script");
const style = readFileSync(join(here, "page.css"), "utf8");
// the policy lets this script run and no other: not even one an injected tag would carry
// inline (its hash is of the element's whole text, the newlines around the bundle too)
const hash = createHash("sha256").update(`\n${script}\n`, "utf8").digest("base64");
const html = readFileSync(join(here, "template.html"), "utf8")
  .replace("/*SCRIPT-HASH*/", () => `sha256-${hash}`)
  .replace("/*STYLE*/", () => style).replace("/*SCRIPT*/", () => script);
if (!html.includes(`<script type="module">\n${script}\n</script>`)) {
  throw new Error("the script is not where its hash says");
}
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, html);
console.log(`wrote ${out} (${html.length.toLocaleString("en")} bytes)`);
