/** Preloaded into every bench section: prints the process's peak resident memory at exit. */
process.on('exit', () => {
  const mb = process.resourceUsage().maxRSS / 1024;
  console.log(`peak RSS (whole section process): ${mb.toFixed(0)} MB`);
});
