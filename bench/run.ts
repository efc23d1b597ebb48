/**
 * `npm run bench`: runs every section in bench/sections and ends with one table,
 * `section | ours | baseline | ratio | target | met`. BENCH_QUICK=1 is the short CI run.
 * A missed target is printed as such; only a section that fails to run fails the command.
 * The full run rewrites bench/RESULTS.md with the date, the machine, the load average at start
 * and end, the table and every section's progress lines (each figure's spread over rounds).
 * Baselines run in the same process and the same rounds as our figures, so a busy machine slows
 * both; the load average says how busy it was.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { cpus, loadavg, totalmem } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BenchRow, BenchSection } from "./types.js";

const quick = process.env.BENCH_QUICK === "1" || process.env.BENCH_QUICK === "true";
const only = process.env.BENCH_ONLY?.split(",").map((s) => s.trim());
const sectionsDir = fileURLToPath(new URL("./sections/", import.meta.url));

const loadAtStart = loadavg()[0].toFixed(2);
const files = (await readdir(sectionsDir)).filter((f) => f.endsWith(".ts")).sort();
const rows: BenchRow[] = [];
const runLog: string[] = [];
const failures: string[] = [];
const started = Date.now();

for (const file of files) {
  const section = (await import(pathToFileURL(sectionsDir + file).href)).default as BenchSection;
  if (only && !only.some((name) => file.includes(name) || section.name.includes(name))) continue;
  const t0 = Date.now();
  console.log(`\n## ${section.name}${quick ? " (quick)" : ""}`);
  runLog.push(`### ${section.name}`, "");
  const log = (line: string) => {
    console.log(`  ${line}`);
    runLog.push(`- ${line}`);
  };
  try {
    const result = await section.run({ quick, log });
    rows.push(...result);
    log(`done in ${((Date.now() - t0) / 1000).toFixed(1)} s, load average ${loadavg()[0].toFixed(2)}`);
    runLog.push("");
  } catch (error) {
    failures.push(section.name);
    console.error(`  section failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
}

const table = [
  "| section | ours | baseline | ratio | target | met |",
  "|---|---|---|---|---|---|",
  ...rows.map((r) => `| ${r.section} | ${r.ours} | ${r.baseline} | ${r.ratio} | ${r.target} | ${r.met ? "yes" : "**no**"} |`),
].join("\n");

const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, ${process.platform}/${process.arch}, load average ${loadAtStart} at start and ${loadavg()[0].toFixed(2)} at the end`;
console.log(`\n${table}\n`);
console.log(`${rows.filter((r) => r.met).length}/${rows.length} targets met; ${((Date.now() - started) / 1000).toFixed(1)} s; ${machine}`);

if (!quick && !only) {
  const date = new Date().toISOString().slice(0, 10);
  const file = new URL("./RESULTS.md", import.meta.url);
  // The hand-written "## Notes" (profiles behind the misses) survive a new run.
  const previous = await readFile(file, "utf8").catch(() => "");
  const notesAt = previous.indexOf("\n## Notes");
  const logAt = previous.indexOf("\n## Run log");
  const notes = notesAt >= 0 ? previous.slice(notesAt, logAt > notesAt ? logAt : undefined) : "";
  await writeFile(
    file,
    `# Benchmark results\n\nRecorded by \`npm run bench\` on ${date}.\n\nMachine: ${machine}.\n\n${table}\n${notes}\n## Run log\n\n${runLog.join("\n")}\n`.replace(/\n{3,}/g, "\n\n"),
  );
  console.log("wrote bench/RESULTS.md");
}

if (failures.length) {
  console.error(`sections that failed to run: ${failures.join(", ")}`);
  process.exit(1);
}
