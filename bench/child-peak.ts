/** Preloaded into a measured child process: reports its peak resident memory on stderr at exit. */
process.on('exit', () => {
  process.stderr.write(`\nKOPFGEN_BENCH_PEAK_KB ${process.resourceUsage().maxRSS}\n`);
});
