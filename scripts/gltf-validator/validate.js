// Validate glTF files with the Khronos glTF Validator; prints one JSON report per file, one a line.
// usage: node validate.js FILE.glb|FILE.gltf ...   (exit 0; the caller reads the reports)
"use strict";
const fs = require("fs");
const path = require("path");
const validator = require("gltf-validator");

async function validate(file) {
  const full = path.resolve(file);
  const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(full)), {
    uri: path.basename(full),
    maxIssues: 0, // every issue
    externalResourceFunction: (uri) =>
      fs.promises.readFile(path.resolve(path.dirname(full), decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
  });
  return { file: full, issues: report.issues, info: report.info };
}

(async () => {
  for (const file of process.argv.slice(2)) {
    try {
      console.log(JSON.stringify(await validate(file)));
    } catch (e) {
      console.log(JSON.stringify({ file, failure: String(e) }));
    }
  }
})();
