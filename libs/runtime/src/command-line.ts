/**
 * The command line of a server entry point, configured by environment variables alone:
 * `--help`/`-h` prints `usage` to stdout and stops (0); any other argument is refused with the
 * usage on stderr (2), so a mistyped flag is never silently ignored. Returns the exit code when the
 * process must stop, or null to start.
 */
export function serverCommandLine(argv: readonly string[], usage: string, name: string): number | null {
  if (argv.length === 0) return null;
  if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const unknown = argv.find((arg) => arg !== '--help' && arg !== '-h') ?? argv[0];
  process.stderr.write(
    `${name}: unknown argument "${unknown}": configuration comes from environment variables\n\n${usage}\n`,
  );
  return 2;
}
