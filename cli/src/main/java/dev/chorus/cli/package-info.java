/**
 * The {@code chorus} command line (picocli): {@link dev.chorus.cli.Main}, the root command and one class per
 * sub-command, with the option groups they share. The application at the top of the build: it depends on
 * {@code node} and {@code testnet} and nothing depends on it, so it is the one place that names the main class
 * (child processes get it passed in).
 */
package dev.chorus.cli;
